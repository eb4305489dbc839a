//! Choosing what happened on the board: the candidate (no change, a legal move, or an
//! illegal relocation of one of the mover's pieces) that best explains the per-square
//! evidence, never one hard per-square reading.

use shakmaty::{Bitboard, Board, Chess, Color, Move, Piece, Position, Role, Square};

use crate::observation::{BLACK, EMPTY, PIECE_TYPES, WHITE};

/// Per-square log-probabilities of (empty, white, black), and optionally of the six
/// piece types, as the tracker currently believes them.
#[derive(Debug, Clone)]
pub struct Evidence {
    pub occupancy: [[f64; 3]; 64],
    pub types: Option<[[f64; 6]; 64]>,
}

impl Evidence {
    /// Evidence that says nothing (every class equally likely).
    pub fn uninformative() -> Evidence {
        Evidence {
            occupancy: [[(1.0f64 / 3.0).ln(); 3]; 64],
            types: None,
        }
    }

    /// Log-likelihood that `sq` shows `piece` (or is empty).
    fn log_p(&self, sq: Square, piece: Option<Piece>) -> f64 {
        let occ = &self.occupancy[sq as usize];
        match piece {
            None => occ[EMPTY],
            Some(p) => {
                let colour = if p.color == Color::White {
                    occ[WHITE]
                } else {
                    occ[BLACK]
                };
                let role = self
                    .types
                    .as_ref()
                    .and_then(|t| PIECE_TYPES.iter().position(|&r| r == p.role).map(|i| t[sq as usize][i]))
                    .unwrap_or(0.0);
                colour + role
            }
        }
    }
}

/// What a candidate says happened.
#[derive(Debug, Clone, PartialEq)]
pub enum CandidateKind {
    /// The board is as the position says.
    NoChange,
    /// A legal move.
    Legal(Move),
    /// One of the mover's pieces went where no legal move takes it (an illegal move
    /// as the camera sees it; the ruling engine decides what it is).
    Relocation { from: Square, to: Square, piece: Piece },
}

/// A way the board may look now, with its prior and the squares where it differs
/// from the position.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub kind: CandidateKind,
    pub board: Board,
    pub changed: Bitboard,
    /// Log prior: 0 for no change and legal moves, negative for illegal relocations.
    pub log_prior: f64,
}

impl Candidate {
    /// The square the moving piece left, if any.
    pub fn from(&self) -> Option<Square> {
        match &self.kind {
            CandidateKind::NoChange => None,
            CandidateKind::Legal(m) => m.from(),
            CandidateKind::Relocation { from, .. } => Some(*from),
        }
    }

    /// The square the moving piece was put on (the king's square for castling).
    pub fn to(&self) -> Option<Square> {
        match &self.kind {
            CandidateKind::NoChange => None,
            CandidateKind::Legal(Move::Castle { king, rook }) => {
                let side = shakmaty::CastlingSide::from_queen_side(rook < king);
                Some(Square::from_coords(side.king_to_file(), king.rank()))
            }
            CandidateKind::Legal(m) => Some(m.to()),
            CandidateKind::Relocation { to, .. } => Some(*to),
        }
    }

    /// Log-likelihood of the evidence under this candidate, relative to no change.
    pub fn score(&self, position: &Board, evidence: &Evidence) -> f64 {
        let mut s = self.log_prior;
        for sq in self.changed {
            s += evidence.log_p(sq, self.board.piece_at(sq)) - evidence.log_p(sq, position.piece_at(sq));
        }
        s
    }
}

/// How much likelier than no change an illegal relocation must make the squares look
/// before it can win: e^6, about 400 to 1 (two squares each read at 95% or better).
pub const ILLEGAL_LOG_PRIOR: f64 = -6.0;

/// Every candidate for the board after the side to move acts: no change, each legal
/// move (promotions to every piece), and each relocation of one of the mover's
/// pieces onto an empty or enemy square that no legal move explains.
pub fn candidates(pos: &Chess) -> Vec<Candidate> {
    let before = pos.board().clone();
    let mut out = vec![Candidate {
        kind: CandidateKind::NoChange,
        board: before.clone(),
        changed: Bitboard::EMPTY,
        log_prior: 0.0,
    }];
    let mut legal: Vec<(Square, Square)> = Vec::new();
    for m in pos.legal_moves() {
        let mut after = pos.clone();
        after.play_unchecked(m);
        let board = after.board().clone();
        let changed = diff(&before, &board);
        if let Some(f) = m.from() {
            legal.push((f, m.to()));
        }
        out.push(Candidate {
            kind: CandidateKind::Legal(m),
            board,
            changed,
            log_prior: 0.0,
        });
    }
    let mover = pos.turn();
    for from in before.by_color(mover) {
        let Some(piece) = before.piece_at(from) else { continue };
        for to in !before.by_color(mover) {
            if to == from || legal.contains(&(from, to)) {
                continue;
            }
            let mut board = before.clone();
            board.discard_piece_at(from);
            board.set_piece_at(to, piece);
            let changed = diff(&before, &board);
            out.push(Candidate {
                kind: CandidateKind::Relocation { from, to, piece },
                board,
                changed,
                log_prior: ILLEGAL_LOG_PRIOR,
            });
        }
    }
    out
}

/// The squares where two boards differ.
pub fn diff(a: &Board, b: &Board) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for sq in a.occupied() | b.occupied() {
        if a.piece_at(sq) != b.piece_at(sq) {
            out.add(sq);
        }
    }
    out
}

/// Promotion to a queen is what the Laws assume when nothing says otherwise (7.5.2).
pub fn prefer_queen(kind: &CandidateKind) -> bool {
    match kind {
        CandidateKind::Legal(m) => m.promotion().is_none_or(|r| r == Role::Queen),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Chess;

    fn evidence_for(board: &Board, sure: f64) -> Evidence {
        let mut e = Evidence::uninformative();
        let (hi, lo) = (sure.ln(), ((1.0 - sure) / 2.0).ln());
        for sq in Square::ALL {
            let c = crate::observation::class_of(board, sq);
            e.occupancy[sq as usize] = [lo; 3];
            e.occupancy[sq as usize][c] = hi;
        }
        e
    }

    #[test]
    fn the_legal_move_that_explains_the_colours_wins() {
        let pos = Chess::default();
        let cands = candidates(&pos);
        assert_eq!(
            cands
                .iter()
                .filter(|c| matches!(c.kind, CandidateKind::Legal(_)))
                .count(),
            20
        );
        let mut after = pos.clone();
        let e4 = pos.legal_moves().into_iter().find(|m| m.to() == Square::E4).unwrap();
        after.play_unchecked(e4);
        let ev = evidence_for(after.board(), 0.9);
        let best = cands
            .iter()
            .max_by(|a, b| a.score(pos.board(), &ev).total_cmp(&b.score(pos.board(), &ev)))
            .unwrap();
        assert_eq!(best.kind, CandidateKind::Legal(e4));
    }

    #[test]
    fn an_impossible_move_is_a_relocation_only_with_strong_evidence() {
        // Lindemann-Echtermeyer: 1.e4 d5 2.exd5 Qxd5, then the c1 bishop put on c3.
        let pos: Chess = "rnb1kbnr/ppp1pppp/8/3q4/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let mut board = pos.board().clone();
        let bishop = board.remove_piece_at(Square::C1).unwrap();
        board.set_piece_at(Square::C3, bishop);
        let cands = candidates(&pos);
        let score = |ev: &Evidence| {
            cands
                .iter()
                .max_by(|a, b| a.score(pos.board(), ev).total_cmp(&b.score(pos.board(), ev)))
                .unwrap()
                .kind
                .clone()
        };
        assert_eq!(
            score(&evidence_for(&board, 0.99)),
            CandidateKind::Relocation {
                from: Square::C1,
                to: Square::C3,
                piece: bishop
            }
        );
        // Barely-there evidence does not turn into an illegal move.
        assert!(!matches!(
            score(&evidence_for(&board, 0.4)),
            CandidateKind::Relocation { .. }
        ));
    }
}
