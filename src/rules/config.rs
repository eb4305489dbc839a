//! How the engine is set up: which Laws, which time control, supervision, variant, start.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The edition of the FIDE Laws of Chess in force.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Laws {
    /// In force 1 July 2009 to 30 June 2014 (the Italian seminar's edition; 7.4 there is 7.5 now).
    #[serde(rename = "2009")]
    Fide2009,
    /// In force since 1 January 2023.
    #[default]
    #[serde(rename = "2023")]
    Fide2023,
}

/// The time control, which selects Appendix A (rapid) or B (blitz) where they differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeControl {
    #[default]
    Standard,
    Rapid,
    Blitz,
}

/// Standard chess or Chess960 (castling rules of shakmaty's `CastlingMode::Chess960`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    #[default]
    Standard,
    Chess960,
}

/// Everything the engine needs to know before the first event.
/// `Config::default()`: 2023 Laws, standard time control, supervised, standard chess, start position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub laws: Laws,
    pub time_control: TimeControl,
    /// Rapid/blitz only: adequate supervision (one arbiter for few games). Standard play is always supervised.
    pub supervised: bool,
    pub variant: Variant,
    /// Full FEN of the starting position; `None` is the standard start position.
    pub start: Option<String>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            laws: Laws::default(),
            time_control: TimeControl::default(),
            supervised: true,
            variant: Variant::default(),
            start: None,
        }
    }
}

impl Config {
    /// Whether the arbiter rules on Article 4 only when a player claims (A.5, B.3; 2009: A.4, B.4).
    pub fn article4_on_claim_only(&self) -> bool {
        self.time_control != TimeControl::Standard && !self.supervised
    }
}

/// Why a command-line value for one of the settings was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is not a valid {what}; expected one of: {expected}")]
pub struct BadSetting {
    pub what: &'static str,
    pub value: String,
    pub expected: &'static str,
}

fn bad(what: &'static str, value: &str, expected: &'static str) -> BadSetting {
    BadSetting {
        what,
        value: value.to_owned(),
        expected,
    }
}

impl FromStr for Laws {
    type Err = BadSetting;
    fn from_str(s: &str) -> Result<Laws, BadSetting> {
        match s {
            "2023" => Ok(Laws::Fide2023),
            "2009" => Ok(Laws::Fide2009),
            _ => Err(bad("laws edition", s, "2023, 2009")),
        }
    }
}

impl FromStr for TimeControl {
    type Err = BadSetting;
    fn from_str(s: &str) -> Result<TimeControl, BadSetting> {
        match s {
            "standard" => Ok(TimeControl::Standard),
            "rapid" => Ok(TimeControl::Rapid),
            "blitz" => Ok(TimeControl::Blitz),
            _ => Err(bad("time control", s, "standard, rapid, blitz")),
        }
    }
}

impl FromStr for Variant {
    type Err = BadSetting;
    fn from_str(s: &str) -> Result<Variant, BadSetting> {
        match s {
            "standard" => Ok(Variant::Standard),
            "chess960" => Ok(Variant::Chess960),
            _ => Err(bad("variant", s, "standard, chess960")),
        }
    }
}

impl fmt::Display for Laws {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Laws::Fide2009 => "2009",
            Laws::Fide2023 => "2023",
        })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimeControl::Standard => "standard",
            TimeControl::Rapid => "rapid",
            TimeControl::Blitz => "blitz",
        })
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Variant::Standard => "standard",
            Variant::Chess960 => "chess960",
        })
    }
}
