//! What the vision stage sees in one frame, in board coordinates: the contract
//! between the camera side (hands, pieces) and the tracker.
//!
//! Plain data with serde, so that a recorded observation stream can be replayed into
//! the tracker in tests without OpenCV or ONNX Runtime.

use serde::{Deserialize, Serialize};
use shakmaty::Square;

use crate::geometry::{BoardEdge, BoardPoint};

/// Where a hand observation came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HandSource {
    /// MediaPipe's landmark model saw the hand.
    Landmarks,
    /// Only the occluder (board-appearance difference) saw an arm.
    Occluder,
    /// Both agree.
    Both,
}

/// A fingertip (or the farthest point of an arm blob) on the board plane.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fingertip {
    pub at: BoardPoint,
    /// 0..1, how sure the detector is of this point.
    pub score: f32,
}

/// One hand (or arm) over the board in one frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandObservation {
    /// 0..1, how sure the detector is that this is a hand.
    pub score: f32,
    /// The board edge the arm enters from, when it can be told.
    pub entry: Option<BoardEdge>,
    /// Fingertips in board coordinates (at least one).
    pub tips: Vec<Fingertip>,
    pub source: HandSource,
    /// Squares the hand (palm, fingers, arm) covers, as a bitboard (bit 0 = a1,
    /// bit 63 = h8; `shakmaty::Bitboard(covers)`).
    #[serde(default)]
    pub covers: u64,
}

/// Index of the three occupancy classes in [`SquareProbs::occupancy`].
pub const EMPTY: usize = 0;
pub const WHITE: usize = 1;
pub const BLACK: usize = 2;

/// The occupancy class ([`EMPTY`], [`WHITE`], [`BLACK`]) a board shows on a square.
pub fn class_of(board: &shakmaty::Board, sq: Square) -> usize {
    match board.color_at(sq) {
        None => EMPTY,
        Some(shakmaty::Color::White) => WHITE,
        Some(shakmaty::Color::Black) => BLACK,
    }
}

/// Piece types in the order of [`SquareProbs::types`]: P, N, B, R, Q, K.
pub const PIECE_TYPES: [shakmaty::Role; 6] = [
    shakmaty::Role::Pawn,
    shakmaty::Role::Knight,
    shakmaty::Role::Bishop,
    shakmaty::Role::Rook,
    shakmaty::Role::Queen,
    shakmaty::Role::King,
];

/// Per-square probabilities for one frame, indexed by `Square as usize` (a1 = 0,
/// b1 = 1, ..., h8 = 63).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SquareProbs {
    /// 64 x (empty, white piece, black piece), each row summing to 1.
    pub occupancy: Vec<[f32; 3]>,
    /// 64 x piece-type distribution (P, N, B, R, Q, K), when the model gives one.
    #[serde(default)]
    pub types: Option<Vec<[f32; 6]>>,
}

impl SquareProbs {
    pub fn get(&self, sq: Square) -> [f32; 3] {
        self.occupancy[sq as usize]
    }
}

/// A player, as the vision stage names them (plain data with serde).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    White,
    Black,
}

impl From<Player> for shakmaty::Color {
    fn from(p: Player) -> shakmaty::Color {
        match p {
            Player::White => shakmaty::Color::White,
            Player::Black => shakmaty::Color::Black,
        }
    }
}

/// Everything the vision stage reports for one frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameObservation {
    pub frame: u64,
    /// Seconds from the start of the source.
    pub t: f64,
    pub hands: Vec<HandObservation>,
    /// `None` when the squares were not read in this frame (skipped, or occluded).
    pub squares: Option<SquareProbs>,
    /// Clock buttons pressed in this frame (a hand came off a calibrated clock region).
    #[serde(default)]
    pub clock_presses: Vec<Player>,
}
