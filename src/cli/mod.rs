//! One file per subcommand: its arguments (clap) and a `run` that calls the library.

pub mod rule;
#[cfg(feature = "vision")]
pub mod calibrate;
#[cfg(feature = "vision")]
pub mod hands;
#[cfg(feature = "vision")]
pub mod pieces;
#[cfg(feature = "vision")]
pub mod review;
