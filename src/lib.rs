//! `arbiter`: a camera arbiter for over-the-board chess.
//!
//! The data flows one way, one module per stage:
//!
//! ```text
//! capture ──> calibration ──> vision (hands, pieces) ──> tracker ──> rules ──> report / serve
//!  frames      board geometry    per-frame observations    events      rulings   people
//! ```
//!
//! The pure core ([`rules`], [`tracker`], [`geometry`], [`observation`]) builds
//! without the `vision` feature, so it is testable on plain data.

pub mod calibration;
#[cfg(feature = "vision")]
pub mod capture;
pub mod geometry;
pub mod observation;
#[cfg(feature = "vision")]
pub mod pipeline;
pub mod report;
pub mod rules;
#[cfg(feature = "serve")]
pub mod serve;
pub mod tracker;
#[cfg(feature = "vision")]
pub mod vision;
