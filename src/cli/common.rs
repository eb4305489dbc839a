//! Options several subcommands share.

use arbiter::rules::{Config, Laws, TimeControl, Variant};

/// How the game is ruled: the Laws' edition, the time control, supervision, variant.
#[derive(clap::Args, Debug, Clone)]
pub struct RulesArgs {
    /// Edition of the FIDE Laws of Chess: 2023 (in force since 1 January 2023) or 2009.
    #[arg(long, default_value = "2023")]
    pub laws: Laws,
    /// Time control: standard, rapid (Appendix A) or blitz (Appendix B).
    #[arg(long = "time-control", default_value = "standard")]
    pub time_control: TimeControl,
    /// Adequate supervision (rapid/blitz): with `false` the arbiter rules on Article 4 only on a claim and an
    /// illegal move stands once the opponent has moved unclaimed.
    #[arg(long, default_value = "true", action = clap::ArgAction::Set)]
    pub supervised: bool,
    /// Variant: standard or chess960 (Chess960 castling rules).
    #[arg(long, default_value = "standard")]
    pub variant: Variant,
    /// Starting position as a full FEN (a `start` event in the stream overrides it).
    #[arg(long)]
    pub start: Option<String>,
}

impl RulesArgs {
    /// The engine's settings, with `start` overriding the command line's.
    pub fn config(&self, start: Option<String>) -> Config {
        Config {
            laws: self.laws,
            time_control: self.time_control,
            supervised: self.supervised,
            variant: self.variant,
            start: start.or_else(|| self.start.clone()),
        }
    }
}
