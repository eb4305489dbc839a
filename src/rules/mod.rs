//! The ruling engine: a stream of board events in, the rulings a FIDE arbiter would give out.
//!
//! Pure: no I/O, no threads, no OpenCV or ONNX Runtime; one [`Engine::push`] per event. The formats are in
//! `docs/rules.md`; the articles it follows are in `../shared/laws.md` (2023 Laws, and the 2009 edition).

mod articles;
pub mod config;
pub mod engine;
pub mod event;
pub mod infer;
pub mod ruling;
pub mod sanction;
pub mod touch;

pub use config::{BadSetting, Config, Laws, TimeControl, Variant};
pub use engine::{Engine, ExpectedPlacement, RulesError};
pub use event::{BoardView, ClaimAbout, ColorMap, Event, EventKind, ParseError, parse_event_line, read_events};
pub use infer::{infer_legal, infer_placement, infer_unique_legal, one_piece_moved};
pub use ruling::{
    Acts, ClaimUntil, Completion, EndReason, IllegalReason, Irregularity, Obligation, Requirement, Ruling, RulingKind,
    Sanction,
};
pub use shakmaty::{Chess, Color, Square};
