//! The engine's output: one JSON object per ruling (see docs/rules.md for every field).

use serde::{Deserialize, Serialize};
use shakmaty::{Color, Square};

use super::event::ClaimAbout;

/// One ruling, with its evidence (`t`, `frame`, `squares`), the article of the edition in force, and who acts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ruling {
    /// Time of the event that produced the ruling.
    pub t: f64,
    #[serde(default)]
    pub frame: Option<u64>,
    /// The article of the edition in force ("4.3.1", "7.5.5", "7.4b" under 2009, ...).
    pub article: String,
    /// The player who broke the rule, moved, or (for a claim) claimed.
    #[serde(with = "color_name")]
    pub player: Color,
    #[serde(flatten)]
    pub acts: Acts,
    /// Squares that are the evidence (touched, changed), in the order seen.
    #[serde(default)]
    pub squares: Vec<String>,
    /// What an arbiter should know that the fields do not say (a doubtful case, an appeal, a missing clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(flatten)]
    pub kind: RulingKind,
}

/// Who must act: the arbiter on their own initiative, or only the opponent by a claim (until when).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "acts", rename_all = "kebab-case")]
pub enum Acts {
    Arbiter,
    Claim { claim_until: ClaimUntil },
}

/// When the right to claim ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimUntil {
    /// Art. 4.8: once the claimant touches a piece with intent to move or capture.
    ClaimantTouchesAPiece,
    /// A.5.2, B.3 (2009: A.4c, B.4): once the claimant has completed their own next move.
    ClaimantCompletesAMove,
}

/// The ruling itself; the `kind` field names it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum RulingKind {
    /// A completed legal move: the output is also the game score.
    Move {
        san: String,
        uci: String,
        /// The position after the move.
        fen: String,
        completed_by: Completion,
    },
    /// Art. 4.3-4.5, 4.7: the move played (or released) does not comply with the touch-move obligation.
    TouchMove {
        #[serde(with = "square_list")]
        touched: Vec<Square>,
        /// SAN of what was played.
        played: String,
        played_uci: String,
        obligation: Obligation,
        /// Every legal move that would have complied, as SAN, sorted.
        required: Vec<String>,
    },
    /// Art. 7.5: an illegal move completed (or a clock press without a move, 2023).
    IllegalMove {
        /// UCI of the board change as seen, or a description when it is no move at all.
        played: String,
        reason: IllegalReason,
        /// FEN of the position to reinstate.
        reinstate: String,
        /// The player's completed illegal moves so far, this one included.
        count: u32,
        /// What the replacing move must be under 4.3 and 4.7 (`None` when the move stands, 7.5.2).
        replacement_must: Option<Requirement>,
    },
    /// Time added, game lost, game drawn.
    Sanction { sanction: Sanction },
    /// Other Article 4 breaches, and what the Laws leave to the arbiter.
    Irregular { what: Irregularity },
    /// The game is over (or, for `regular: false` under the 2023 Laws, would be if the move stood).
    GameEnd {
        /// "1-0", "0-1", "1/2-1/2".
        result: String,
        reason: EndReason,
        /// Whether the ending move met Articles 3 and 4.2-4.7.
        regular: bool,
        /// Whether the game is over now (a mate by an irregular move does not end it under 2023 5.1.1).
        stands: bool,
    },
    /// A claim and what came of it.
    Claim { about: ClaimAbout, upheld: bool },
    /// The settled board matches no legal continuation and no describable illegal move: the engine keeps its position.
    UnexplainedBoard {
        /// What the camera showed (placement, or colours when that is all it sent).
        seen: String,
        /// The placement the engine believes is on the board.
        expected: String,
    },
}

/// What completed a move (Art. 6.2.1 names the clock press; footage without a visible clock needs the others).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Completion {
    /// The mover pressed the clock (6.2.1).
    Clock,
    /// The move ended the game (mate, stalemate, dead position): complete at once (5.1.1, 5.2, 6.2.1).
    GameEnd,
    /// No clock press seen; the opponent's first touch or lift showed the move was over.
    OpponentTouch,
    /// No clock press seen; the next settled board already showed the opponent's reply.
    NextBoard,
    /// No clock press seen before the stream ended.
    EndOfStream,
}

/// The touch-move obligation that applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Obligation {
    /// 4.3.1: move the first touched own piece that can move.
    MoveFirstTouchedOwn,
    /// 4.3.2: capture the first touched opponent's piece that can be captured.
    CaptureFirstTouchedOpponent,
    /// 4.3.3: capture the touched opponent's piece with the touched own piece.
    CaptureWithTouchedOwn,
    /// 4.4.1: king and rook touched: castle on that side.
    Castle,
    /// 4.4.2: rook then king: no castling on that side; the rook must move.
    MoveRookNotCastle,
    /// 4.4.3: king then rook, castling illegal: another king move (castling on the other side allowed).
    MoveKingInstead,
    /// 4.7: king released two squares away: castle on that side.
    CastleAfterKingReleased,
    /// 4.7: a piece released on a square as a legal move stays there.
    ReleasedPieceStays,
    /// 4.4.4: the promotion piece that touched the square is final.
    PromotionPieceFinal,
    /// 4.5 (or nothing touched): any legal move.
    AnyMove,
}

/// An obligation with the moves that satisfy it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requirement {
    pub obligation: Obligation,
    pub article: String,
    #[serde(with = "square_list")]
    pub touched: Vec<Square>,
    /// Sorted SAN; empty for `any-move`.
    pub required: Vec<String>,
}

/// Why a move is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IllegalReason {
    /// The piece cannot move that way (Art. 3).
    ImpossibleMove,
    /// The move leaves or puts the mover's own king in check (3.9).
    KingInCheck,
    /// An opponent's piece was moved.
    WrongColor,
    /// The board changed in a way no single move explains, but a single piece moved.
    NotAMove,
    /// 7.5.2: a pawn on the last rank, clock pressed, not replaced.
    PromotionNotCompleted,
    /// 7.5.3: the clock was pressed without a move.
    ClockWithoutMove,
    /// 4.7/7.5: king released two squares away but castling is illegal or was not completed.
    CastlingNotCompleted,
    /// 7.5.4: a move made with two hands and the clock pressed (the move stands).
    TwoHands,
}

/// A penalty.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Sanction {
    Time {
        #[serde(with = "color_name")]
        to: Color,
        seconds: u32,
    },
    Loss,
    Draw {
        why: String,
    },
}

/// Irregularities that are not touch-move or illegal moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Irregularity {
    /// 4.2.1: touching the pieces when not on move.
    TouchWhenNotOnMove,
    /// 4.2.1: adjusting when not on move.
    AdjustWhenNotOnMove,
    /// 2009: a clock press without a move is not covered; the arbiter decides (13.4).
    ClockWithoutMove,
    /// 2009: a move made with two hands (4.1), no penalty in that edition; the arbiter decides.
    TwoHands,
    /// Chess960: castling after touching the rook first (4.4.2); an appeal may allow it.
    Chess960RookFirstCastling,
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndReason {
    Checkmate,
    Stalemate,
    /// 5.2.2: neither side can checkmate by any series of legal moves.
    DeadPosition,
    /// 7.5.5 (2009: 7.4b): illegal moves.
    IllegalMoves,
}

mod color_name {
    use serde::{Deserialize, Deserializer, Serializer};
    use shakmaty::Color;

    pub fn serialize<S: Serializer>(color: &Color, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(color)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
        match String::deserialize(d)?.as_str() {
            "white" => Ok(Color::White),
            "black" => Ok(Color::Black),
            other => Err(serde::de::Error::custom(format!(
                "expected \"white\" or \"black\", found \"{other}\""
            ))),
        }
    }
}

mod square_list {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use shakmaty::Square;

    pub fn serialize<S: Serializer>(squares: &[Square], s: S) -> Result<S::Ok, S::Error> {
        squares.iter().map(|sq| sq.to_string()).collect::<Vec<_>>().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Square>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|text| {
                Square::from_ascii(text.as_bytes())
                    .map_err(|_| serde::de::Error::custom(format!("bad square \"{text}\"")))
            })
            .collect()
    }
}

/// The JSON name of an enum value ("king-in-check"), for human text.
fn wire<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// A short human sentence for the summary on stderr.
impl Ruling {
    pub fn summary(&self) -> String {
        let who = self.player;
        let at = format!("t={:.2}", self.t);
        let acts = match self.acts {
            Acts::Arbiter => "the arbiter acts".to_owned(),
            Acts::Claim { claim_until } => format!("on claim only, until {}", wire(&claim_until)),
        };
        let body = match &self.kind {
            RulingKind::Move { san, .. } => format!("{who} played {san}"),
            RulingKind::TouchMove {
                played,
                required,
                obligation,
                ..
            } => format!(
                "touch-move ({}): {who} played {played}; required one of {}",
                wire(obligation),
                required.join(", ")
            ),
            RulingKind::IllegalMove {
                played, reason, count, ..
            } => {
                format!("illegal move #{count} by {who}: {played} ({})", wire(reason))
            }
            RulingKind::Sanction { sanction } => format!("sanction against {who}: {}", wire(sanction)),
            RulingKind::Irregular { what } => format!("irregular, {who}: {}", wire(what)),
            RulingKind::GameEnd {
                result,
                reason,
                regular,
                stands,
            } => {
                format!(
                    "game end {result} ({}), regular {regular}, stands {stands}",
                    wire(reason)
                )
            }
            RulingKind::Claim { about, upheld } => {
                format!(
                    "claim by {who} about {}: {}",
                    wire(about),
                    if *upheld { "upheld" } else { "rejected" }
                )
            }
            RulingKind::UnexplainedBoard { seen, .. } => format!("unexplained board {seen}"),
        };
        format!("{at} [{}] {body} ({acts})", self.article)
    }
}
