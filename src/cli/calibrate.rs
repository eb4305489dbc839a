//! `arbiter calibrate` (not yet built).

use std::process::ExitCode;

/// (not yet built)
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`arbiter calibrate` is not built yet")
}
