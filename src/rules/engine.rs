//! The state machine: events in, rulings out. Pure (no I/O, no threads), one call per event.
//!
//! The engine keeps two boards apart: `pos`, the last position reached by completed moves (what the arbiter
//! would reinstate), and `phys`, what it believes stands on the board now (settled boards, lifts and places).
//! Every settled board is compared with `pos`: equal, one legal move (released, waiting for completion), a
//! castling or promotion half done, a describable illegal move, or unexplained (reported, position kept).

use shakmaty::fen::Fen;
use shakmaty::{
    Board, ByColor, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, FromSetup, Move, Piece, Position,
    PositionError, Rank, Role, Square, san::SanPlus,
};

use super::articles::Clause;
use super::config::{Config, Laws, Variant};
use super::event::{BoardView, ClaimAbout, ColorMap, Event, EventKind};
use super::infer::{infer_legal, infer_unique_legal, one_piece_moved};
use super::ruling::{
    Acts, ClaimUntil, Completion, EndReason, IllegalReason, Irregularity, Obligation, Requirement, Ruling, RulingKind,
    Sanction,
};
use super::sanction::{ends_game, for_illegal_move};
use super::touch::{Duty, Touch, duty, touched_squares};

/// Why an engine could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("bad start FEN \"{fen}\": {why}")]
    BadFen { fen: String, why: String },
    #[error(transparent)]
    Parse(#[from] super::event::ParseError),
}

/// A legal move from the current position with the placement it leaves (for a camera choosing the legal move
/// that best explains what it sees).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedPlacement {
    pub mv: Move,
    pub san: String,
    pub uci: String,
    pub board: Board,
}

/// The ruling engine. See the module documentation and docs/rules.md.
#[derive(Clone, Debug)]
pub struct Engine {
    config: Config,
    mode: CastlingMode,
    pos: Chess,
    moves: Vec<String>,
    phys: Board,
    hand: Vec<Piece>,
    touches: Vec<Touch>,
    /// Contacts the camera could not tell from a brush (4.2.2): evidence only, never a duty.
    possible: Vec<Touch>,
    /// A note for the released move's ruling: what a possible touch would have required, or that the move was
    /// ruled against.
    move_note: Option<String>,
    adjusting: ByColor<bool>,
    /// The tracker saw both hands of the player take part in the move being made (4.1).
    two_hands: ByColor<bool>,
    pending: Pending,
    /// A legal move the player released (4.7): any other move breaches it.
    released: Option<Move>,
    last_settled: Option<Board>,
    illegal_count: ByColor<u32>,
    clock_seen: bool,
    open_claim: Option<OpenClaim>,
    forfeited: Option<(Color, ClaimAbout)>,
    /// After an illegal move the arbiter reinstates; if the players go on from the illegal position instead,
    /// the engine follows the board from here.
    stood: Option<Chess>,
    illegal_stood: bool,
    over: bool,
}

/// What the settled board shows relative to `pos`.
#[derive(Clone, Debug, PartialEq)]
enum Pending {
    Nothing,
    /// A legal move released on the board, not yet completed.
    Legal {
        mv: Move,
        compliant: bool,
    },
    /// 4.7: the king released two squares away; castling on that side is legal and expected.
    KingReleased {
        castle: Move,
        from: Square,
        to: Square,
    },
    /// A pawn on the last rank, not yet replaced.
    PromotionIncomplete {
        from: Square,
        to: Square,
    },
    /// One piece moved where it cannot go.
    Illegal {
        from: Square,
        to: Square,
        reason: IllegalReason,
    },
    Unexplained,
}

/// A breach that only the opponent's claim turns into a ruling, while the claim is still possible.
#[derive(Clone, Debug)]
struct OpenClaim {
    claimant: Color,
    about: ClaimAbout,
    until: ClaimUntil,
    before: Chess,
    moves_len: usize,
    touches: Vec<Touch>,
    required: Vec<String>,
    /// Whether an earlier illegal move had already stood when this one was made.
    illegal_stood: bool,
    /// Whether upholding the claim reinstates `before` (not when the move stands: 7.5.2 under 2023, 7.5.4).
    reinstate: bool,
}

/// An illegal move as seen, for the ruling: what was played and why it is illegal, the replacement duty when it
/// is not the touches' (4.7 castling), and the position left on the board (to follow if it stands).
struct Seen {
    played: String,
    reason: IllegalReason,
    clause: Clause,
    squares: Vec<Square>,
    replacement: Option<Duty>,
    stood: Option<Chess>,
}

/// Where a board to settle came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// A `board` event: the camera saw the board settled.
    Camera,
    /// Replayed from lifts and places: no piece left in the player's hand.
    Hands,
}

/// The evidence of the event being handled.
#[derive(Clone, Copy, Debug)]
struct At {
    t: f64,
    frame: Option<u64>,
}

impl Engine {
    pub fn new(config: Config) -> Result<Engine, RulesError> {
        let mode = match config.variant {
            Variant::Standard => CastlingMode::Standard,
            Variant::Chess960 => CastlingMode::Chess960,
        };
        let pos = match &config.start {
            None => Chess::default(),
            Some(text) => position_from_fen(text, mode)?,
        };
        Ok(Engine {
            config,
            mode,
            phys: pos.board().clone(),
            pos,
            moves: Vec::new(),
            hand: Vec::new(),
            touches: Vec::new(),
            possible: Vec::new(),
            move_note: None,
            adjusting: ByColor {
                white: false,
                black: false,
            },
            two_hands: ByColor {
                white: false,
                black: false,
            },
            pending: Pending::Nothing,
            released: None,
            last_settled: None,
            illegal_count: ByColor { white: 0, black: 0 },
            clock_seen: false,
            open_claim: None,
            forfeited: None,
            stood: None,
            illegal_stood: false,
            over: false,
        })
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The position reached by the completed moves: what is on the board once every move is completed and
    /// every illegal move reinstated.
    pub fn position(&self) -> &Chess {
        &self.pos
    }

    pub fn fen(&self) -> String {
        Fen::from_position(&self.pos, EnPassantMode::Legal).to_string()
    }

    /// SAN of the completed legal moves, in order.
    pub fn moves(&self) -> &[String] {
        &self.moves
    }

    pub fn turn(&self) -> Color {
        self.pos.turn()
    }

    /// Whether the game has ended (mate, stalemate, dead position, or a sanction).
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// Whether an illegal move stood (unclaimed in unsupervised play, or never reinstated): `moves()` then no
    /// longer replays to `position()`.
    pub fn illegal_stood(&self) -> bool {
        self.illegal_stood
    }

    /// The player's completed illegal moves so far.
    pub fn illegal_moves(&self, color: Color) -> u32 {
        *self.illegal_count.get(color)
    }

    /// Every legal move from the current position with the placement it produces.
    pub fn expected_placements(&self) -> Vec<ExpectedPlacement> {
        self.pos
            .legal_moves()
            .into_iter()
            .map(|mv| {
                let mut after = self.pos.clone();
                let san = SanPlus::from_move_and_play_unchecked(&mut after, mv).to_string();
                ExpectedPlacement {
                    mv,
                    san,
                    uci: mv.to_uci(self.mode).to_string(),
                    board: after.board().clone(),
                }
            })
            .collect()
    }

    /// Handles one event and returns the rulings it causes, in order.
    pub fn push(&mut self, event: &Event) -> Vec<Ruling> {
        let at = At {
            t: event.t,
            frame: event.frame,
        };
        let mut out = Vec::new();
        match &event.kind {
            EventKind::Start { fen } => self.restart(fen),
            _ if self.over => {}
            EventKind::Touch { by, square } => self.on_touch(at, *by, *square, false, &mut out),
            // A doubt is evidence for the arbiter's eyes, never a duty or a penalty.
            EventKind::PossibleTouch { by, square } => {
                if *by == self.pos.turn()
                    && let Some(piece) = self.phys.piece_at(*square)
                {
                    self.possible.push(Touch {
                        square: *square,
                        piece,
                        t: at.t,
                    });
                }
            }
            EventKind::Lift { by, square } => {
                self.on_touch(at, *by, *square, true, &mut out);
                if let Some(piece) = self.phys.remove_piece_at(*square) {
                    self.hand.push(piece);
                }
            }
            EventKind::Place { by, square } => self.on_place(at, *by, *square, &mut out),
            EventKind::Board(view) => {
                self.hand.clear();
                match self.placement_of(view) {
                    Some(board) => self.settle(at, board, Source::Camera, &mut out),
                    None => self.unexplained(at, view_text(view), &mut out),
                }
            }
            EventKind::Clock { by } => self.on_clock(at, *by, &mut out),
            EventKind::Adjust { by } => {
                self.opponent_started(at, *by, &mut out);
                if self.over {
                } else if *by == self.pos.turn() {
                    *self.adjusting.get_mut(*by) = true;
                } else {
                    let acts = self.article4_acts();
                    out.push(self.ruling(
                        at,
                        Clause::A4_2_1,
                        *by,
                        acts,
                        vec![],
                        None,
                        RulingKind::Irregular {
                            what: Irregularity::AdjustWhenNotOnMove,
                        },
                    ));
                }
            }
            EventKind::Claim { by, about } => self.on_claim(at, *by, *about, &mut out),
            EventKind::TwoHands { by } => {
                if *by == self.pos.turn() {
                    *self.two_hands.get_mut(*by) = true;
                }
            }
        }
        out
    }

    /// Flushes what the end of the stream completes: a legal move released but never completed by a clock press.
    pub fn finish(&mut self, t: f64, frame: Option<u64>) -> Vec<Ruling> {
        let mut out = Vec::new();
        // The board shows the released move, so the score records it, even one ruled against under touch-move
        // (its note says so). Only a mate by an irregular move stays open under 2023 (5.1.1: it does not stand).
        let Pending::Legal { mv, compliant } = self.pending else {
            return out;
        };
        let irregular_ending = !compliant
            && self.config.laws == Laws::Fide2023
            && self
                .pos
                .clone()
                .play(mv)
                .is_ok_and(|after| ending(&after, self.pos.turn()).is_some());
        if !self.over && !irregular_ending {
            if !compliant {
                self.move_note = Some("ruled against under touch-move; the stream ended before it was replaced".into());
            }
            self.complete(At { t, frame }, Completion::EndOfStream, &mut out);
        }
        out
    }

    /// A `start` event: a fresh game from that position, while no move has been made.
    fn restart(&mut self, fen: &str) {
        if !self.moves.is_empty() {
            return;
        }
        let config = Config {
            start: Some(fen.to_owned()),
            ..self.config.clone()
        };
        if let Ok(fresh) = Engine::new(config) {
            *self = fresh;
        }
    }

    fn article4_acts(&self) -> Acts {
        if self.config.article4_on_claim_only() {
            Acts::Claim {
                claim_until: ClaimUntil::ClaimantTouchesAPiece,
            }
        } else {
            Acts::Arbiter
        }
    }

    fn illegal_on_claim(&self) -> bool {
        self.config.article4_on_claim_only()
    }

    #[allow(clippy::too_many_arguments)]
    fn ruling(
        &self,
        at: At,
        clause: Clause,
        player: Color,
        acts: Acts,
        squares: Vec<Square>,
        note: Option<String>,
        kind: RulingKind,
    ) -> Ruling {
        Ruling {
            t: at.t,
            frame: at.frame,
            article: clause.cite(&self.config),
            player,
            acts,
            squares: squares.iter().map(|s| s.to_string()).collect(),
            note,
            kind,
        }
    }

    fn san(&self, mv: Move) -> String {
        SanPlus::from_move(self.pos.clone(), mv).to_string()
    }

    fn uci(&self, mv: Move) -> String {
        mv.to_uci(self.mode).to_string()
    }

    // --- hands ---------------------------------------------------------------------------------------------

    /// Without a clock, the opponent's first touch (or announcement) is what shows the move was over.
    fn opponent_started(&mut self, at: At, by: Color, out: &mut Vec<Ruling>) {
        if by == self.pos.turn() || self.clock_seen {
            return;
        }
        match self.pending {
            Pending::Legal { .. } => self.complete(at, Completion::OpponentTouch, out),
            Pending::Illegal { .. } => self.complete_illegal_without_clock(at, out),
            _ => {}
        }
    }

    fn on_touch(&mut self, at: At, by: Color, square: Square, lifting: bool, out: &mut Vec<Ruling>) {
        self.opponent_started(at, by, out);
        if self.over {
            return;
        }
        if by != self.pos.turn() {
            if self.phys.piece_at(square).is_some() {
                let acts = self.article4_acts();
                let note = Some("touching the pieces when not on move; any penalty is the arbiter's (12.9)".into());
                out.push(self.ruling(
                    at,
                    Clause::A4_2_1,
                    by,
                    acts,
                    vec![square],
                    note,
                    RulingKind::Irregular {
                        what: Irregularity::TouchWhenNotOnMove,
                    },
                ));
            }
            return;
        }
        if *self.adjusting.get(by) && !lifting {
            return;
        }
        *self.adjusting.get_mut(by) = false;
        let Some(piece) = self.phys.piece_at(square) else {
            return;
        };
        if let Some(claim) = &self.open_claim
            && claim.claimant == by
            && claim.until == ClaimUntil::ClaimantTouchesAPiece
        {
            self.forfeited = Some((by, claim.about));
            self.open_claim = None;
        }
        self.touches.push(Touch { square, piece, t: at.t });
    }

    fn on_place(&mut self, at: At, by: Color, square: Square, out: &mut Vec<Ruling>) {
        let index = self
            .hand
            .iter()
            .rposition(|p| p.color == by)
            .or(self.hand.len().checked_sub(1));
        // A piece from outside the board (a promotion): colours alone cannot tell, a queen is the usual choice
        // and the next settled board corrects it.
        let piece = match index {
            Some(i) => self.hand.remove(i),
            None => Piece {
                color: by,
                role: Role::Queen,
            },
        };
        self.phys.set_piece_at(square, piece);
        if !self.hand.iter().any(|p| p.color == by) {
            self.hand.clear();
            let board = self.phys.clone();
            self.settle(at, board, Source::Hands, out);
        }
    }

    // --- boards --------------------------------------------------------------------------------------------

    fn placement_of(&self, view: &BoardView) -> Option<Board> {
        match view {
            BoardView::Placement(board) => Some(board.clone()),
            BoardView::Colors(colors) => {
                let after_pending = match self.pending {
                    Pending::Legal { mv, .. } => self.pos.clone().play(mv).ok(),
                    _ => None,
                };
                let mut bases: Vec<&Chess> = vec![&self.pos];
                bases.extend(after_pending.as_ref());
                bases.extend(self.stood.as_ref());
                infer_legal(&bases, colors)
                    .or_else(|| {
                        // A settled board missed: the colours may show the reply to a move never seen.
                        let root = after_pending.as_ref().unwrap_or(&self.pos);
                        let after_one: Vec<Chess> = root
                            .legal_moves()
                            .iter()
                            .filter_map(|m| root.clone().play(*m).ok())
                            .collect();
                        let bases: Vec<&Chess> = after_one.iter().collect();
                        infer_unique_legal(&bases, colors)
                    })
                    // Last, one piece moved where it cannot go: an illegal move that can still be described.
                    .or_else(|| one_piece_moved(self.pos.board(), colors))
            }
        }
    }

    fn unexplained(&mut self, at: At, seen: String, out: &mut Vec<Ruling>) {
        // A released move stays believed: the next board that explains itself may continue from it.
        if !matches!(self.pending, Pending::Legal { .. }) {
            self.pending = Pending::Unexplained;
        }
        let expected = self.pos.board().board_fen().to_string();
        let note = Some("no legal continuation and no single illegal move explains this board; position kept".into());
        let player = self.pos.turn();
        out.push(self.ruling(
            at,
            Clause::A6_2_1,
            player,
            Acts::Arbiter,
            vec![],
            note,
            RulingKind::UnexplainedBoard { seen, expected },
        ));
    }

    fn settle(&mut self, at: At, board: Board, source: Source, out: &mut Vec<Ruling>) {
        if self.over || self.last_settled.as_ref() == Some(&board) {
            return;
        }
        self.last_settled = Some(board.clone());
        self.phys = board.clone();
        let prev = std::mem::replace(&mut self.pending, Pending::Nothing);
        self.move_note = None;
        if board == *self.pos.board() {
            return;
        }
        if let Some(mv) = find_move(&self.pos, &board) {
            self.handle_legal(at, mv, prev, out);
            return;
        }
        // The players went on from an illegal position the arbiter would have reinstated: follow the board.
        if let Some(stood) = self.stood.clone()
            && let Some(mv) = find_move(&stood, &board)
        {
            self.pos = stood;
            self.stood = None;
            self.illegal_stood = true;
            self.touches.clear();
            self.released = None;
            self.handle_legal(at, mv, Pending::Nothing, out);
            return;
        }
        // Settled boards missed: the moves before the last were completed, the last is released.
        if let Some((last, earlier)) = find_missed_moves(&self.pos, &board, &prev).split_last() {
            for (i, mv) in earlier.iter().enumerate() {
                self.pending = match prev {
                    Pending::Legal { mv: released, .. } if i == 0 && released == *mv => prev.clone(),
                    _ => Pending::Legal {
                        mv: *mv,
                        compliant: true,
                    },
                };
                self.complete(at, Completion::NextBoard, out);
                if self.over {
                    return;
                }
            }
            self.handle_legal(at, *last, Pending::Nothing, out);
            return;
        }
        let classified = self.classify(&board);
        if classified == Pending::Unexplained {
            // A released move stays believed: the next board that explains itself may continue from it.
            self.pending = if matches!(prev, Pending::Legal { .. }) {
                prev
            } else {
                classified
            };
            if source == Source::Hands {
                // Lifts and places alone may be mid-way (a promotion piece put down before the pawn is taken
                // off): only a settled camera board is reported as unexplained.
                self.last_settled = None;
            } else {
                let seen = board.board_fen().to_string();
                self.unexplained(at, seen, out);
            }
            return;
        }
        self.pending = classified;
        match self.pending {
            Pending::Illegal { from, .. } | Pending::PromotionIncomplete { from, .. } => self.touch_implied(at, from),
            Pending::KingReleased { from, .. } => self.touch_implied(at, from),
            Pending::Nothing | Pending::Legal { .. } | Pending::Unexplained => {}
        }
    }

    /// A piece that moved was touched, whether or not a touch event said so.
    fn touch_implied(&mut self, at: At, square: Square) {
        if let Some(piece) = self.pos.board().piece_at(square)
            && !self.touches.iter().any(|t| t.square == square)
        {
            self.touches.push(Touch { square, piece, t: at.t });
        }
    }

    /// What a board that is no legal move from `pos` shows.
    fn classify(&self, board: &Board) -> Pending {
        let before = self.pos.board();
        let changed: Vec<Square> = Square::ALL
            .into_iter()
            .filter(|sq| before.piece_at(*sq) != board.piece_at(*sq))
            .collect();
        let [a, b] = changed.as_slice() else {
            return Pending::Unexplained;
        };
        let (from, to) = if board.piece_at(*a).is_none() {
            (*a, *b)
        } else {
            (*b, *a)
        };
        let (Some(piece), None) = (before.piece_at(from), board.piece_at(from)) else {
            return Pending::Unexplained;
        };
        let Some(landed) = board.piece_at(to) else {
            return Pending::Unexplained;
        };
        if landed != piece || before.piece_at(to).is_some_and(|p| p.color == piece.color) {
            return Pending::Unexplained;
        }
        let us = self.pos.turn();
        if piece.color != us {
            return Pending::Illegal {
                from,
                to,
                reason: IllegalReason::WrongColor,
            };
        }
        if piece.role == Role::King && from.rank() == to.rank() && from.distance(to) == 2 {
            let side = CastlingSide::from_king_side(to > from);
            if let Some(rook) = self.pos.castles().rook(us, side) {
                let castle = Move::Castle { king: from, rook };
                if self.pos.is_legal(castle) {
                    return Pending::KingReleased { castle, from, to };
                }
            }
            return Pending::Illegal {
                from,
                to,
                reason: IllegalReason::CastlingNotCompleted,
            };
        }
        if piece.role == Role::Pawn && to.rank() == us.fold_wb(Rank::Eighth, Rank::First) {
            return Pending::PromotionIncomplete { from, to };
        }
        let reason = if moves_like(self.pos.board(), piece, from, to, self.pos.maybe_ep_square()) {
            IllegalReason::KingInCheck
        } else {
            IllegalReason::ImpossibleMove
        };
        Pending::Illegal { from, to, reason }
    }

    fn handle_legal(&mut self, at: At, mv: Move, prev: Pending, out: &mut Vec<Ruling>) {
        let mover = self.pos.turn();
        if let Some(from) = mv.from() {
            self.touch_implied(at, from);
        }
        let duty = self.current_duty(mv, &prev);
        let compliant = duty.allows(mv);
        self.move_note = if compliant { self.doubt_about(mv) } else { None };
        if !compliant {
            let acts = self.article4_acts();
            let rook_first_960 = self.config.variant == Variant::Chess960
                && duty.obligation == Obligation::MoveRookNotCastle
                && mv.is_castle();
            let note = rook_first_960.then(|| {
                "Chess960: rook touched before the king, so castling on that side is not allowed (4.4.2); an appeal \
                 may allow it (Nepomniachtchi-So 2019 was replayed): a doubtful case"
                    .to_owned()
            });
            let required = duty.required_san(&self.pos);
            let squares = duty.touched.clone();
            out.push(self.ruling(
                at,
                duty.clause,
                mover,
                acts,
                squares,
                note,
                RulingKind::TouchMove {
                    touched: duty.touched.clone(),
                    played: self.san(mv),
                    played_uci: self.uci(mv),
                    obligation: duty.obligation,
                    required: required.clone(),
                },
            ));
            if self.config.article4_on_claim_only() {
                self.open_claim = Some(OpenClaim {
                    claimant: mover.other(),
                    about: ClaimAbout::TouchMove,
                    until: ClaimUntil::ClaimantTouchesAPiece,
                    before: self.pos.clone(),
                    moves_len: self.moves.len(),
                    touches: self.touches.clone(),
                    required,
                    illegal_stood: self.illegal_stood,
                    reinstate: true,
                });
            }
        } else {
            self.released = Some(mv);
        }
        self.pending = Pending::Legal { mv, compliant };

        let Ok(after) = self.pos.clone().play(mv) else { return };
        if let Some((result, reason)) = ending(&after, mover) {
            if compliant || self.config.laws == Laws::Fide2009 {
                self.complete(at, Completion::GameEnd, out);
            } else {
                let note = Some(
                    "5.1.1: the mate (or other ending) counts only if the move met Articles 3 and 4.2-4.7; it was \
                     not regular, so the game goes on with a move that complies"
                        .to_owned(),
                );
                let acts = self.article4_acts();
                out.push(self.ruling(
                    at,
                    Clause::A5_1_1,
                    mover,
                    acts,
                    vec![],
                    note,
                    RulingKind::GameEnd {
                        result: result.to_owned(),
                        reason,
                        regular: false,
                        stands: false,
                    },
                ));
            }
        }
    }

    /// The obligation in force for the move being made: a released move (4.7, 4.4.4), a king released two
    /// squares away (4.7), else the touches (4.3-4.5).
    fn current_duty(&self, mv: Move, prev: &Pending) -> Duty {
        let touched = touched_squares(&self.pos, &self.touches);
        if let Some(released) = self.released
            && released != mv
            && !castling_continues(released, mv)
        {
            let promotion_only = released.from() == mv.from() && released.to() == mv.to();
            let (obligation, clause) = if promotion_only {
                (Obligation::PromotionPieceFinal, Clause::A4_4_4)
            } else {
                (Obligation::ReleasedPieceStays, Clause::A4_7)
            };
            return Duty {
                obligation,
                clause,
                touched,
                moves: Some(vec![released]),
            };
        }
        if let Pending::KingReleased { castle, .. } = prev
            && *castle != mv
        {
            return Duty {
                obligation: Obligation::CastleAfterKingReleased,
                clause: Clause::A4_7,
                touched,
                moves: Some(vec![*castle]),
            };
        }
        // Lifting the piece that moved carries out the move (the breach), it is not part of the obligation: only
        // what was touched before its last touch counts. Castling moves two pieces whose order matters (4.4), so
        // there every touch counts.
        let relevant = match mv.from() {
            Some(from) if !mv.is_castle() => {
                let cut = self
                    .touches
                    .iter()
                    .rposition(|t| t.square == from)
                    .unwrap_or(self.touches.len());
                &self.touches[..cut]
            }
            _ => self.touches.as_slice(),
        };
        let mut duty = duty(&self.pos, relevant);
        duty.touched = touched;
        duty
    }

    /// A note when a possible touch, had it been deliberate, would have forbidden `mv`: the arbiter may look,
    /// the engine does not rule on a doubt.
    fn doubt_about(&self, mv: Move) -> Option<String> {
        if self.possible.is_empty() {
            return None;
        }
        let mut with_possible: Vec<Touch> = self.touches.iter().chain(&self.possible).copied().collect();
        with_possible.sort_by(|a, b| a.t.total_cmp(&b.t));
        let mover = mv.from()?;
        let cut = with_possible
            .iter()
            .rposition(|t| t.square == mover)
            .unwrap_or(with_possible.len());
        let duty = duty(&self.pos, &with_possible[..cut]);
        if duty.allows(mv) {
            return None;
        }
        let squares: Vec<String> = self.possible.iter().map(|t| t.square.to_string()).collect();
        Some(format!(
            "possible touch of {} (the camera could not tell it from a brush): had it been deliberate, one of {} \
             was required; not ruled, a doubt is never a penalty",
            squares.join(", "),
            duty.required_san(&self.pos).join(", ")
        ))
    }

    // --- completion ----------------------------------------------------------------------------------------

    /// Completes a released legal move (6.2.1), then checks whether it ends the game.
    fn complete(&mut self, at: At, how: Completion, out: &mut Vec<Ruling>) {
        let Pending::Legal { mv, compliant } = self.pending else {
            return;
        };
        let mover = self.pos.turn();
        let san = self.san(mv);
        let uci = self.uci(mv);
        let Ok(after) = self.pos.clone().play(mv) else {
            self.pending = Pending::Nothing;
            return;
        };
        self.pos = after;
        self.moves.push(san.clone());
        self.pending = Pending::Nothing;
        self.touches.clear();
        self.possible.clear();
        self.released = None;
        self.stood = None;
        *self.adjusting.get_mut(mover) = false;
        if std::mem::replace(self.two_hands.get_mut(mover), false) && how != Completion::Clock {
            let note = "made with two hands; without a clock press 7.5.4 does not apply (4.1: the arbiter decides)";
            self.move_note = Some(
                self.move_note
                    .take()
                    .map_or(note.to_owned(), |n| format!("{n}; {note}")),
            );
        }
        if let Some(claim) = &self.open_claim
            && claim.claimant == mover
        {
            self.open_claim = None;
        }
        let without_clock = match how {
            Completion::Clock | Completion::GameEnd => None,
            Completion::OpponentTouch => Some("no clock press seen: completed when the opponent touched a piece"),
            Completion::NextBoard => Some("no clock press seen: completed by the next settled board"),
            Completion::EndOfStream => Some("no clock press seen before the end of the stream"),
        };
        let notes: Vec<String> = without_clock
            .map(str::to_owned)
            .into_iter()
            .chain(self.move_note.take())
            .collect();
        let note = (!notes.is_empty()).then(|| notes.join("; "));
        let fen = self.fen();
        let squares: Vec<Square> = mv.from().into_iter().chain(std::iter::once(mv.to())).collect();
        out.push(self.ruling(
            at,
            Clause::A6_2_1,
            mover,
            Acts::Arbiter,
            squares,
            note,
            RulingKind::Move {
                san,
                uci,
                fen,
                completed_by: how,
            },
        ));
        if let Some((result, reason)) = ending(&self.pos, mover) {
            self.over = true;
            let clause = if reason == EndReason::Checkmate {
                Clause::A5_1_1
            } else {
                Clause::A5_2
            };
            let note = (!compliant).then(|| {
                "the ending move did not meet Article 4; under the 2009 Laws the result stands (the seminar's \
                 paradox)"
                    .to_owned()
            });
            out.push(self.ruling(
                at,
                clause,
                mover,
                Acts::Arbiter,
                vec![],
                note,
                RulingKind::GameEnd {
                    result: result.to_owned(),
                    reason,
                    regular: compliant,
                    stands: true,
                },
            ));
        }
    }

    fn on_clock(&mut self, at: At, by: Color, out: &mut Vec<Ruling>) {
        self.clock_seen = true;
        if by != self.pos.turn() {
            return;
        }
        *self.adjusting.get_mut(by) = false;
        match self.pending.clone() {
            Pending::Legal { mv, .. } if *self.two_hands.get(by) => {
                let squares: Vec<Square> = mv.from().into_iter().chain([mv.to()]).collect();
                if self.config.laws == Laws::Fide2023 {
                    // 7.5.4: penalised as an illegal move; the move itself stands.
                    let seen = Seen {
                        played: self.uci(mv),
                        reason: IllegalReason::TwoHands,
                        clause: Clause::A7_5_4,
                        squares,
                        replacement: None,
                        stood: None,
                    };
                    self.illegal(at, by, seen, out);
                } else {
                    let note =
                        Some("4.1: one hand only; the 2009 Laws give no penalty, the arbiter decides (13.4)".into());
                    let what = Irregularity::TwoHands;
                    let ruling = self.ruling(
                        at,
                        Clause::A4_1,
                        by,
                        Acts::Arbiter,
                        squares,
                        note,
                        RulingKind::Irregular { what },
                    );
                    out.push(ruling);
                }
                if !self.over {
                    self.pending = Pending::Legal { mv, compliant: true };
                    self.complete(at, Completion::Clock, out);
                }
            }
            Pending::Legal { .. } => self.complete(at, Completion::Clock, out),
            Pending::Nothing => {
                if self.phys != *self.pos.board() {
                    return;
                }
                let stood = self.pos.clone().swap_turn().ok();
                match self.config.laws {
                    Laws::Fide2023 => {
                        let played = "clock pressed without a move".to_owned();
                        self.illegal(
                            at,
                            by,
                            Seen {
                                played,
                                reason: IllegalReason::ClockWithoutMove,
                                clause: Clause::A7_5_3,
                                squares: vec![],
                                replacement: None,
                                stood,
                            },
                            out,
                        );
                    }
                    Laws::Fide2009 => {
                        let note = Some(
                            "a clock press without a move is not covered by the 2009 Laws (the seminar's \"non-move\"); \
                             the arbiter decides (Gijssen suggested 2 minutes to the opponent)"
                                .to_owned(),
                        );
                        out.push(self.ruling(
                            at,
                            Clause::ArbiterDiscretion,
                            by,
                            Acts::Arbiter,
                            vec![],
                            note,
                            RulingKind::Irregular {
                                what: Irregularity::ClockWithoutMove,
                            },
                        ));
                        self.stood = stood;
                    }
                }
            }
            Pending::KingReleased { castle, from, to } => {
                let replacement = Duty {
                    obligation: Obligation::CastleAfterKingReleased,
                    clause: Clause::A4_7,
                    touched: touched_squares(&self.pos, &self.touches),
                    moves: Some(vec![castle]),
                };
                let played = format!("{from}{to}");
                let stood = self.stood_position(by);
                self.illegal(
                    at,
                    by,
                    Seen {
                        played,
                        reason: IllegalReason::CastlingNotCompleted,
                        clause: Clause::A7_5_1,
                        squares: vec![from, to],
                        replacement: Some(replacement),
                        stood,
                    },
                    out,
                );
            }
            Pending::PromotionIncomplete { from, to } => self.promotion_not_completed(at, by, from, to, out),
            Pending::Illegal { from, to, reason } => {
                let stood = self.stood_position(by);
                self.illegal(
                    at,
                    by,
                    Seen {
                        played: format!("{from}{to}"),
                        reason,
                        clause: Clause::A7_5_1,
                        squares: vec![from, to],
                        replacement: None,
                        stood,
                    },
                    out,
                );
            }
            Pending::Unexplained => {}
        }
    }

    /// 7.5.2: the pawn on the last rank becomes a queen (2023); under 2009 it is an illegal move reinstated.
    fn promotion_not_completed(&mut self, at: At, by: Color, from: Square, to: Square, out: &mut Vec<Ruling>) {
        let queen = self
            .pos
            .legal_moves()
            .into_iter()
            .find(|m| m.from() == Some(from) && m.to() == to && m.promotion() == Some(Role::Queen));
        let played = format!("{from}{to}");
        match (self.config.laws, queen) {
            (Laws::Fide2023, Some(queen)) => {
                self.illegal(
                    at,
                    by,
                    Seen {
                        played,
                        reason: IllegalReason::PromotionNotCompleted,
                        clause: Clause::A7_5_2,
                        squares: vec![from, to],
                        replacement: None,
                        stood: None,
                    },
                    out,
                );
                if !self.over {
                    self.pending = Pending::Legal {
                        mv: queen,
                        compliant: true,
                    };
                    self.complete(at, Completion::Clock, out);
                }
            }
            _ => {
                let stood = self.stood_position(by);
                self.illegal(
                    at,
                    by,
                    Seen {
                        played,
                        reason: IllegalReason::PromotionNotCompleted,
                        clause: Clause::A7_5_1,
                        squares: vec![from, to],
                        replacement: None,
                        stood,
                    },
                    out,
                );
            }
        }
    }

    /// The illegal position as the board shows it, with the opponent to move (to follow the players if they go
    /// on from it).
    fn stood_position(&self, offender: Color) -> Option<Chess> {
        let mut setup = self.pos.to_setup(EnPassantMode::Legal);
        setup.board = self.phys.clone();
        setup.turn = offender.other();
        setup.ep_square = None;
        Chess::from_setup(setup, self.mode)
            .or_else(PositionError::ignore_invalid_castling_rights)
            .or_else(PositionError::ignore_invalid_ep_square)
            .or_else(PositionError::ignore_too_much_material)
            .ok()
    }

    /// An illegal placement seen without any clock in the stream, and the opponent has started their turn.
    fn complete_illegal_without_clock(&mut self, at: At, out: &mut Vec<Ruling>) {
        let Pending::Illegal { from, to, reason } = self.pending else {
            return;
        };
        let offender = self.pos.turn();
        let before = self.pos.clone();
        let replacement = duty(&self.pos, &self.touches);
        let requirement = self.requirement(&replacement);
        let note = Some(
            "no clock press seen, so the move was never completed (7.5.1): no 7.5.5 penalty; the arbiter decides"
                .to_owned(),
        );
        out.push(self.ruling(
            at,
            Clause::A7_5_1,
            offender,
            Acts::Arbiter,
            vec![from, to],
            note,
            RulingKind::IllegalMove {
                played: format!("{from}{to}"),
                reason,
                reinstate: Fen::from_position(&before, EnPassantMode::Legal).to_string(),
                count: *self.illegal_count.get(offender),
                replacement_must: Some(requirement),
            },
        ));
        self.stood = self.stood_position(offender);
        self.pending = Pending::Nothing;
    }

    fn requirement(&self, duty: &Duty) -> Requirement {
        Requirement {
            obligation: duty.obligation,
            article: duty.clause.cite(&self.config),
            touched: duty.touched.clone(),
            required: duty.required_san(&self.pos),
        }
    }

    /// A completed illegal move (7.5.1-7.5.3): the ruling, then the sanction or the open claim.
    fn illegal(&mut self, at: At, offender: Color, seen: Seen, out: &mut Vec<Ruling>) {
        let Seen {
            played,
            reason,
            clause,
            squares,
            replacement,
            stood,
        } = seen;
        let before = self.pos.clone();
        let reinstate = Fen::from_position(&before, EnPassantMode::Legal).to_string();
        // The move stands, only penalised: a pawn not replaced becomes a queen (7.5.2, 2023), a move made with
        // two hands (7.5.4).
        let stands = reason == IllegalReason::TwoHands
            || (reason == IllegalReason::PromotionNotCompleted && self.config.laws == Laws::Fide2023);
        let replacement_must = if stands {
            None
        } else {
            let replacement = replacement.unwrap_or_else(|| duty(&self.pos, &self.touches));
            Some(self.requirement(&replacement))
        };
        let on_claim = self.illegal_on_claim() && (stood.is_some() || stands);
        let count = *self.illegal_count.get(offender) + 1;
        let note = if reason == IllegalReason::TwoHands {
            Some(
                "a move made with two hands, clock pressed: penalised as an illegal move, the move stands (7.5.4)"
                    .into(),
            )
        } else if stands {
            Some("the pawn becomes a queen and the move stands (7.5.2)".to_owned())
        } else if self.illegal_on_claim() && stood.is_none() {
            Some("the position cannot stand (a king left in check): the arbiter intervenes even without a claim".into())
        } else {
            None
        };
        if on_claim {
            let acts = Acts::Claim {
                claim_until: ClaimUntil::ClaimantCompletesAMove,
            };
            out.push(self.ruling(
                at,
                clause,
                offender,
                acts,
                squares,
                note,
                RulingKind::IllegalMove {
                    played,
                    reason,
                    reinstate,
                    count,
                    replacement_must: replacement_must.clone(),
                },
            ));
            self.open_claim = Some(OpenClaim {
                claimant: offender.other(),
                about: ClaimAbout::IllegalMove,
                until: ClaimUntil::ClaimantCompletesAMove,
                before,
                moves_len: self.moves.len(),
                touches: self.touches.clone(),
                required: replacement_must.map(|r| r.required).unwrap_or_default(),
                illegal_stood: self.illegal_stood,
                reinstate: !stands,
            });
            // Unclaimed, the illegal move stands: the game goes on from the board as it is.
            if let Some(stood) = stood {
                self.pos = stood;
                self.illegal_stood = true;
                self.touches.clear();
                self.released = None;
                self.pending = Pending::Nothing;
            }
            return;
        }
        *self.illegal_count.get_mut(offender) = count;
        out.push(self.ruling(
            at,
            clause,
            offender,
            Acts::Arbiter,
            squares,
            note,
            RulingKind::IllegalMove {
                played,
                reason,
                reinstate,
                count,
                replacement_must,
            },
        ));
        self.sanction(at, offender, count, Acts::Arbiter, out);
        self.stood = stood;
        self.pending = Pending::Nothing;
    }

    fn sanction(&mut self, at: At, offender: Color, count: u32, acts: Acts, out: &mut Vec<Ruling>) {
        let sanction = for_illegal_move(&self.config, offender, count, &self.pos);
        let result = ends_game(&sanction, offender);
        let note = match (&sanction, self.config.laws) {
            (Sanction::Loss, Laws::Fide2009) if self.config.article4_on_claim_only() => {
                Some("2009 blitz without adequate supervision: the opponent may claim the win before moving".into())
            }
            _ => None,
        };
        out.push(self.ruling(
            at,
            Clause::A7_5_5,
            offender,
            acts,
            vec![],
            note,
            RulingKind::Sanction { sanction },
        ));
        if let Some(result) = result {
            self.over = true;
            out.push(self.ruling(
                at,
                Clause::A7_5_5,
                offender,
                acts,
                vec![],
                None,
                RulingKind::GameEnd {
                    result: result.to_owned(),
                    reason: EndReason::IllegalMoves,
                    regular: false,
                    stands: true,
                },
            ));
        }
    }

    // --- claims --------------------------------------------------------------------------------------------

    fn on_claim(&mut self, at: At, by: Color, about: ClaimAbout, out: &mut Vec<Ruling>) {
        let clause = match about {
            ClaimAbout::TouchMove => Clause::A4_8,
            ClaimAbout::IllegalMove => Clause::A7_5_5,
        };
        let open = self.open_claim.take_if(|c| c.claimant == by && c.about == about);
        let Some(claim) = open else {
            let note = if self.forfeited == Some((by, about)) {
                "forfeited: the claimant touched a piece first (4.8)"
            } else if self.open_claim.is_some() {
                "the open claim is the opponent's or about something else"
            } else {
                "nothing open to claim (the arbiter rules on own initiative here, or the claim came too late)"
            };
            let acts = Acts::Claim {
                claim_until: ClaimUntil::ClaimantTouchesAPiece,
            };
            out.push(self.ruling(
                at,
                clause,
                by,
                acts,
                vec![],
                Some(note.to_owned()),
                RulingKind::Claim { about, upheld: false },
            ));
            return;
        };
        let offender = by.other();
        let note = if !claim.reinstate {
            "the move stands; the penalty applies".to_owned()
        } else if claim.required.is_empty() {
            "position reinstated; any legal move".to_owned()
        } else {
            format!(
                "position reinstated; the move must be one of: {}",
                claim.required.join(", ")
            )
        };
        let acts = Acts::Claim {
            claim_until: claim.until,
        };
        out.push(self.ruling(
            at,
            clause,
            by,
            acts,
            vec![],
            Some(note),
            RulingKind::Claim { about, upheld: true },
        ));
        if claim.reinstate {
            self.pos = claim.before;
            self.moves.truncate(claim.moves_len);
            self.touches = claim.touches;
            self.possible.clear();
            self.move_note = None;
            self.pending = Pending::Nothing;
            self.released = None;
            self.last_settled = None;
            self.stood = None;
            self.illegal_stood = claim.illegal_stood;
            self.two_hands = ByColor {
                white: false,
                black: false,
            };
        }
        if about == ClaimAbout::IllegalMove {
            let count = *self.illegal_count.get(offender) + 1;
            *self.illegal_count.get_mut(offender) = count;
            self.sanction(at, offender, count, acts, out);
        }
    }
}

fn position_from_fen(text: &str, mode: CastlingMode) -> Result<Chess, RulesError> {
    let bad = |why: String| RulesError::BadFen {
        fen: text.to_owned(),
        why,
    };
    let fen = Fen::from_ascii(text.as_bytes()).map_err(|e| bad(e.to_string()))?;
    fen.into_position(mode).map_err(|e| bad(e.to_string()))
}

fn view_text(view: &BoardView) -> String {
    match view {
        BoardView::Placement(board) => board.board_fen().to_string(),
        BoardView::Colors(colors) => ColorMap::to_string(colors),
    }
}

/// The legal move from `pos` that leaves exactly `board`.
fn find_move(pos: &Chess, board: &Board) -> Option<Move> {
    pos.legal_moves().into_iter().find(|m| {
        let mut after = pos.clone();
        after.play_unchecked(*m);
        after.board() == board
    })
}

/// The legal moves that lead from `pos` to `board` when settled boards were missed: the released move and one
/// or two replies, or two moves when none was released. Empty when none do.
fn find_missed_moves(pos: &Chess, board: &Board, prev: &Pending) -> Vec<Move> {
    let Pending::Legal { mv: released, .. } = prev else {
        return pos
            .legal_moves()
            .into_iter()
            .find_map(|first| {
                let mut after = pos.clone();
                after.play_unchecked(first);
                find_move(&after, board).map(|second| vec![first, second])
            })
            .unwrap_or_default();
    };
    let mut after = pos.clone();
    after.play_unchecked(*released);
    if let Some(second) = find_move(&after, board) {
        return vec![*released, second];
    }
    after
        .legal_moves()
        .into_iter()
        .find_map(|second| {
            let mut next = after.clone();
            next.play_unchecked(second);
            find_move(&next, board).map(|third| vec![*released, second, third])
        })
        .unwrap_or_default()
}

/// Castling done rook first or king first in several settled steps (4.7: complete when the rook is released).
fn castling_continues(released: Move, mv: Move) -> bool {
    match mv {
        Move::Castle { king, rook } => released.from() == Some(king) || released.from() == Some(rook),
        _ => false,
    }
}

/// Whether `piece` moves like that (ignoring checks): used to tell "leaves the king in check" from "impossible".
fn moves_like(board: &Board, piece: Piece, from: Square, to: Square, ep: Option<Square>) -> bool {
    if piece.role != Role::Pawn {
        return shakmaty::attacks::attacks(from, piece, board.occupied()).contains(to);
    }
    let forward = piece.color.fold_wb(8, -8);
    let target_free = board.piece_at(to).is_none();
    let one = from.offset(forward);
    let two = one.and_then(|s| s.offset(forward));
    let start_rank = piece.color.fold_wb(Rank::Second, Rank::Seventh);
    if one == Some(to) && target_free {
        return true;
    }
    if two == Some(to) && from.rank() == start_rank && target_free && one.is_some_and(|s| board.piece_at(s).is_none()) {
        return true;
    }
    let captures = shakmaty::attacks::pawn_attacks(piece.color, from).contains(to);
    captures && (board.piece_at(to).is_some_and(|p| p.color != piece.color) || ep == Some(to))
}

/// Mate, stalemate or dead position after `mover`'s move: the result and why.
fn ending(pos: &Chess, mover: Color) -> Option<(&'static str, EndReason)> {
    if pos.is_checkmate() {
        Some((if mover == Color::White { "1-0" } else { "0-1" }, EndReason::Checkmate))
    } else if pos.is_stalemate() {
        Some(("1/2-1/2", EndReason::Stalemate))
    } else if pos.is_insufficient_material() {
        Some(("1/2-1/2", EndReason::DeadPosition))
    } else {
        None
    }
}
