//! Colour-only boards: a camera that cannot tell piece types sends which squares are white and black;
//! the types follow from the game (the legal move, or single displaced piece, that explains the colours).

use shakmaty::{Board, Chess, Move, Position, Role, Square};

use super::event::ColorMap;

/// The placement a colour map most plausibly shows, tried against each base position in turn (the position
/// the engine believes, then any position a pending move would give): the base itself, one of its legal
/// moves (a promotion is taken as a queen, since colours cannot tell), or one piece moved to a square
/// (an illegal move that can still be described). `None` when nothing explains the colours.
pub fn infer_placement(bases: &[&Chess], colors: &ColorMap) -> Option<Board> {
    for base in bases {
        if ColorMap::of(base.board()) == *colors {
            return Some(base.board().clone());
        }
    }
    for base in bases {
        let mut found: Option<(Move, Board)> = None;
        for m in base.legal_moves() {
            let mut after: Chess = (*base).clone();
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
        if let Some((_, board)) = found {
            return Some(board);
        }
    }
    bases.first().and_then(|base| one_piece_moved(base.board(), colors))
}

/// `board` with one piece moved (capturing whatever stood there) if that is the whole colour change.
fn one_piece_moved(board: &Board, colors: &ColorMap) -> Option<Board> {
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
