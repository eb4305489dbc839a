//! Touch-move obligations (Art. 4.3-4.5): which moves a player must choose from, given what they touched.

use shakmaty::{CastlingSide, Chess, Move, Piece, Position, Role, Square, san::SanPlus};

use super::articles::Clause;
use super::ruling::Obligation;

/// A deliberate touch by the player on move, in the order seen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Touch {
    pub square: Square,
    pub piece: Piece,
    pub t: f64,
}

/// What the touches oblige: the obligation, its clause, and the moves that satisfy it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duty {
    pub obligation: Obligation,
    pub clause: Clause,
    pub touched: Vec<Square>,
    /// `None`: any legal move complies (4.5, or nothing touched).
    pub moves: Option<Vec<Move>>,
}

impl Duty {
    pub fn any(clause: Clause, touched: Vec<Square>) -> Duty {
        Duty {
            obligation: Obligation::AnyMove,
            clause,
            touched,
            moves: None,
        }
    }

    pub fn allows(&self, m: Move) -> bool {
        self.moves.as_ref().is_none_or(|moves| moves.contains(&m))
    }

    /// The complying moves as SAN (with check marks), sorted.
    pub fn required_san(&self, pos: &Chess) -> Vec<String> {
        self.moves
            .as_ref()
            .map(|moves| sorted_san(pos, moves))
            .unwrap_or_default()
    }
}

pub fn sorted_san(pos: &Chess, moves: &[Move]) -> Vec<String> {
    let mut san: Vec<String> = moves
        .iter()
        .map(|m| SanPlus::from_move(pos.clone(), *m).to_string())
        .collect();
    san.sort();
    san.dedup();
    san
}

/// The square of the piece a move captures (differs from `to` for en passant).
pub fn captured_square(m: Move) -> Option<Square> {
    match m {
        Move::Normal {
            capture: Some(_), to, ..
        } => Some(to),
        Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
        _ => None,
    }
}

/// Orders touches for the Laws: by time, and the player's own piece first when the order is unclear (4.3.3).
fn ordered(pos: &Chess, touches: &[Touch]) -> Vec<Touch> {
    let us = pos.turn();
    let mut seen: Vec<Touch> = Vec::new();
    for touch in touches {
        if !seen.iter().any(|s| s.square == touch.square) {
            seen.push(*touch);
        }
    }
    seen.sort_by(|a, b| {
        a.t.total_cmp(&b.t)
            .then_with(|| (a.piece.color != us).cmp(&(b.piece.color != us)))
    });
    seen
}

/// The touched squares as the Laws order them, each once.
pub fn touched_squares(pos: &Chess, touches: &[Touch]) -> Vec<Square> {
    ordered(pos, touches).iter().map(|t| t.square).collect()
}

/// The touch-move duty of the player on move in `pos` after `touches` (Art. 4.3, 4.4, 4.5).
pub fn duty(pos: &Chess, touches: &[Touch]) -> Duty {
    let us = pos.turn();
    let touches = ordered(pos, touches);
    let touched: Vec<Square> = touches.iter().map(|t| t.square).collect();
    if touches.is_empty() {
        return Duty::any(Clause::A4_5, touched);
    }
    let legal = pos.legal_moves();
    let own: Vec<&Touch> = touches.iter().filter(|t| t.piece.color == us).collect();
    let opp: Vec<&Touch> = touches.iter().filter(|t| t.piece.color != us).collect();

    // 4.4: king and rook.
    let mut excluded_castle: Option<Move> = None;
    if let Some(first) = own.first() {
        let king = pos.board().king_of(us);
        let castling_rook = |sq: Square| {
            [CastlingSide::KingSide, CastlingSide::QueenSide]
                .into_iter()
                .find(|side| pos.castles().rook(us, *side) == Some(sq))
        };
        let later_own = &own[1..];
        if Some(first.square) == king {
            if let (Some(king), Some(rook)) = (
                king,
                later_own
                    .iter()
                    .find(|t| castling_rook(t.square).is_some())
                    .map(|t| t.square),
            ) {
                let castle = Move::Castle { king, rook };
                if legal.contains(&castle) {
                    return Duty {
                        obligation: Obligation::Castle,
                        clause: Clause::A4_4_1,
                        touched,
                        moves: Some(vec![castle]),
                    };
                }
                let king_moves: Vec<Move> = legal
                    .iter()
                    .copied()
                    .filter(|m| m.from() == Some(king) && *m != castle)
                    .collect();
                if king_moves.is_empty() {
                    return Duty::any(Clause::A4_4_3, touched);
                }
                return Duty {
                    obligation: Obligation::MoveKingInstead,
                    clause: Clause::A4_4_3,
                    touched,
                    moves: Some(king_moves),
                };
            }
        } else if let (Some(king), Some(_)) = (king, castling_rook(first.square))
            && later_own.iter().any(|t| t.square == king)
        {
            excluded_castle = Some(Move::Castle {
                king,
                rook: first.square,
            });
        }
    }

    let moves_of = |sq: Square| -> Vec<Move> {
        legal
            .iter()
            .copied()
            .filter(|m| Some(*m) != excluded_castle)
            .filter(|m| match m {
                // Castling is a king move: touching the rook alone does not allow it.
                Move::Castle { king, .. } => *king == sq,
                _ => m.from() == Some(sq),
            })
            .collect()
    };
    let captures_of = |sq: Square| -> Vec<Move> {
        legal
            .iter()
            .copied()
            .filter(|m| captured_square(*m) == Some(sq))
            .collect()
    };
    let rook_first = excluded_castle.is_some();
    let own_duty = |sq: Square, moves: Vec<Move>, clause: Clause| {
        let is_rook = pos.board().role_at(sq) == Some(Role::Rook);
        if rook_first && is_rook {
            Duty {
                obligation: Obligation::MoveRookNotCastle,
                clause: Clause::A4_4_2,
                touched: touched.clone(),
                moves: Some(moves),
            }
        } else {
            Duty {
                obligation: Obligation::MoveFirstTouchedOwn,
                clause,
                touched: touched.clone(),
                moves: Some(moves),
            }
        }
    };

    match (own.first(), opp.first()) {
        (Some(o), Some(x)) => {
            // 4.3.3: capture the first touched opponent's piece with the first touched own piece, else the first
            // touched piece that can move or be captured.
            let capture: Vec<Move> = moves_of(o.square)
                .into_iter()
                .filter(|m| captured_square(*m) == Some(x.square))
                .collect();
            if !capture.is_empty() {
                return Duty {
                    obligation: Obligation::CaptureWithTouchedOwn,
                    clause: Clause::A4_3_3,
                    touched,
                    moves: Some(capture),
                };
            }
            for t in &touches {
                if t.piece.color == us {
                    let moves = moves_of(t.square);
                    if !moves.is_empty() {
                        return own_duty(t.square, moves, Clause::A4_3_3);
                    }
                } else {
                    let moves = captures_of(t.square);
                    if !moves.is_empty() {
                        return Duty {
                            obligation: Obligation::CaptureFirstTouchedOpponent,
                            clause: Clause::A4_3_3,
                            touched,
                            moves: Some(moves),
                        };
                    }
                }
            }
            Duty::any(Clause::A4_5, touched)
        }
        (Some(_), None) => {
            for t in &own {
                let moves = moves_of(t.square);
                if !moves.is_empty() {
                    return own_duty(t.square, moves, Clause::A4_3_1);
                }
            }
            Duty::any(Clause::A4_5, touched)
        }
        (None, Some(_)) => {
            for t in &opp {
                let moves = captures_of(t.square);
                if !moves.is_empty() {
                    return Duty {
                        obligation: Obligation::CaptureFirstTouchedOpponent,
                        clause: Clause::A4_3_2,
                        touched,
                        moves: Some(moves),
                    };
                }
            }
            Duty::any(Clause::A4_5, touched)
        }
        (None, None) => Duty::any(Clause::A4_5, touched),
    }
}
