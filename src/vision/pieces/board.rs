//! A settled board's probabilities to the ruling engine's `board` event strings.
//! Pure (no OpenCV, no ORT).

use shakmaty::{Board, Color, Piece, Square};

use crate::observation::{BLACK, EMPTY, PIECE_TYPES, SquareProbs, WHITE};

/// A piece type is written into `placement` only when every occupied square's type is
/// at least this sure; otherwise the engine gets `colors` alone and infers the types
/// from the game (from overhead, types are often unsure).
pub const TYPE_CONFIDENCE: f32 = 0.9;

fn argmax<const N: usize>(p: &[f32; N]) -> usize {
    (0..N).fold(0, |best, i| if p[i] > p[best] { i } else { best })
}

/// The most likely colour of every square, a1 first.
pub fn colors_of(probs: &SquareProbs) -> [Option<Color>; 64] {
    let mut out = [None; 64];
    for (i, o) in out.iter_mut().enumerate() {
        *o = match probs.occupancy.get(i).map(argmax) {
            Some(WHITE) => Some(Color::White),
            Some(BLACK) => Some(Color::Black),
            _ => None,
        };
    }
    out
}

/// `(colors, placement)` of the engine's `board` event for a settled board: `colors`
/// is 8 ranks of `w`/`b`/digits, rank 8 first, like a FEN's first field; `placement`
/// is the FEN's first field when every occupied square's type is sure (see
/// [`TYPE_CONFIDENCE`]). Each square takes its most likely class: call this only on a
/// settled board (the tracker works on the probabilities themselves).
pub fn settled_board_strings(probs: &SquareProbs) -> (String, Option<String>) {
    let colors = colors_of(probs);
    let mut text = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match colors[rank * 8 + file] {
                None => empty += 1,
                Some(c) => {
                    if empty > 0 {
                        text.push_str(&empty.to_string());
                        empty = 0;
                    }
                    text.push(if c == Color::White { 'w' } else { 'b' });
                }
            }
        }
        if empty > 0 {
            text.push_str(&empty.to_string());
        }
        if rank > 0 {
            text.push('/');
        }
    }
    let placement = probs.types.as_ref().and_then(|types| {
        let mut board = Board::empty();
        for (i, color) in colors.iter().enumerate() {
            let Some(color) = *color else { continue };
            let t = types.get(i)?;
            let best = argmax(t);
            if t[best] < TYPE_CONFIDENCE {
                return None;
            }
            board.set_piece_at(
                Square::new(i as u32),
                Piece {
                    color,
                    role: PIECE_TYPES[best],
                },
            );
        }
        Some(board.to_string())
    });
    (text, placement)
}

/// Probabilities that say exactly `board` (for tests and for the confirmed positions).
pub fn probs_of(board: &Board) -> SquareProbs {
    let mut occupancy = vec![[0.0f32; 3]; 64];
    let mut types = vec![[0.0f32; 6]; 64];
    for i in 0..64 {
        let sq = Square::new(i as u32);
        match board.piece_at(sq) {
            None => occupancy[i][EMPTY] = 1.0,
            Some(p) => {
                occupancy[i][if p.color == Color::White { WHITE } else { BLACK }] = 1.0;
                types[i][p.role as usize - 1] = 1.0;
            }
        }
    }
    SquareProbs {
        occupancy,
        types: Some(types),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_round_trips() {
        let board = Board::new();
        let (colors, placement) = settled_board_strings(&probs_of(&board));
        assert_eq!(colors, "bbbbbbbb/bbbbbbbb/8/8/8/8/wwwwwwww/wwwwwwww");
        assert_eq!(
            placement.as_deref(),
            Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")
        );
        let parsed: Board = placement.unwrap().parse().unwrap();
        assert_eq!(parsed, board);
    }

    #[test]
    fn unsure_types_give_colors_only() {
        let board: Board = "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR".parse().unwrap();
        let mut probs = probs_of(&board);
        let (colors, placement) = settled_board_strings(&probs);
        assert_eq!(colors, "b1bbbb1b/bbbb1wbb/2b2b2/4b3/2w1w3/8/wwww1www/www1w1ww");
        assert_eq!(placement.as_deref(), Some(board.to_string().as_str()));
        if let Some(t) = probs.types.as_mut() {
            t[Square::F7 as usize] = [0.5, 0.0, 0.0, 0.0, 0.5, 0.0];
        }
        probs.occupancy[Square::A3 as usize] = [0.4, 0.35, 0.25];
        let (colors2, placement2) = settled_board_strings(&probs);
        assert_eq!(colors2, colors);
        assert_eq!(placement2, None);
    }
}
