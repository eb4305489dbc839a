//! Colour-only boards: a camera that cannot tell piece types sends which squares are white and black;
//! the types follow from the game (the legal move, or single displaced piece, that explains the colours).

use shakmaty::{Board, Chess, Move, Position, Role, Square};

use super::event::ColorMap;

/// The placement a colour map most plausibly shows, tried against each base position in turn (the position
/// the engine believes, then any position a pending move would give): the base itself, one of its legal
/// moves (a promotion is taken as a queen, since colours cannot tell), or one piece moved to a square
/// (an illegal move that can still be described). `None` when nothing explains the colours.
pub fn infer_placement(bases: &[&Chess], colors: &ColorMap) -> Option<Board> {
    infer_legal(bases, colors).or_else(|| bases.first().and_then(|base| one_piece_moved(base.board(), colors)))
}

/// The base itself, or one of its legal moves, with exactly these colours (no illegal relocation).
pub fn infer_legal(bases: &[&Chess], colors: &ColorMap) -> Option<Board> {
    bases
        .iter()
        .find(|base| ColorMap::of(base.board()) == *colors)
        .map(|base| base.board().clone())
        .or_else(|| bases.iter().find_map(|base| legal_move_with_colors(base, colors)))
}

/// One legal move from any of the bases with exactly these colours, if the placement it gives is the only one:
/// used for missed boards, where colours can be ambiguous (Nxg7 Bxg7 and Nxe7 Bxe7 leave the same colours).
pub fn infer_unique_legal(bases: &[&Chess], colors: &ColorMap) -> Option<Board> {
    let mut found: Option<Board> = None;
    for board in bases.iter().filter_map(|base| legal_move_with_colors(base, colors)) {
        match &found {
            Some(seen) if *seen != board => return None,
            _ => found = Some(board),
        }
    }
    found
}

/// The placement after the legal move of `base` that leaves exactly these colours (a promotion as a queen).
fn legal_move_with_colors(base: &Chess, colors: &ColorMap) -> Option<Board> {
    let mut found: Option<(Move, Board)> = None;
    for m in base.legal_moves() {
        let mut after: Chess = base.clone();
        after.play_unchecked(m);
        if ColorMap::of(after.board()) == *colors {
            let better = match &found {
                None => true,
                Some((prev, _)) => m.promotion() == Some(Role::Queen) && prev.promotion() != Some(Role::Queen),
            };
            if better {
                found = Some((m, after.board().clone()));
            }
        }
    }
    found.map(|(_, board)| board)
}

/// `board` with one piece moved (capturing whatever stood there) if that is the whole colour change.
pub fn one_piece_moved(board: &Board, colors: &ColorMap) -> Option<Board> {
    let before = ColorMap::of(board);
    let changed: Vec<Square> = Square::ALL
        .into_iter()
        .filter(|sq| before.color_at(*sq) != colors.color_at(*sq))
        .collect();
    let [a, b] = changed.as_slice() else { return None };
    let (from, to) = if colors.color_at(*a).is_none() {
        (*a, *b)
    } else {
        (*b, *a)
    };
    let piece = board.piece_at(from)?;
    if colors.color_at(from).is_some() || colors.color_at(to) != Some(piece.color) {
        return None;
    }
    let mut moved = board.clone();
    moved.discard_piece_at(from);
    moved.set_piece_at(to, piece);
    Some(moved)
}
