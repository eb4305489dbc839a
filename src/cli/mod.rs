//! One file per subcommand: its arguments (clap) and a `run` that calls the library.

#[cfg(feature = "vision")]
pub mod calibrate;
pub mod common;
#[cfg(feature = "vision")]
pub mod hands;
#[cfg(feature = "serve")]
pub mod hub;
#[cfg(feature = "vision")]
pub mod pieces;
#[cfg(feature = "vision")]
pub mod review;
pub mod rule;
#[cfg(feature = "serve")]
pub mod serve;
