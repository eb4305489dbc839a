//! Board calibration: the calibration file ([`file`]) and, with the `vision`
//! feature, finding the board in a picture and rectifying frames.

#[cfg(feature = "vision")]
pub mod check;
#[cfg(feature = "vision")]
pub mod detect;
pub mod file;
#[cfg(feature = "vision")]
pub mod rectify;

pub use file::{Calibration, CalibrationFileError, WhiteSide};
