//! Article numbers: the engine thinks in 2023 clauses and cites the edition in force.

use super::config::{Config, Laws, TimeControl};

/// A clause of the Laws, named by its 2023 number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Clause {
    /// One hand only.
    A4_1,
    /// Adjusting or touching only by the player on move.
    A4_2_1,
    A4_3_1,
    A4_3_2,
    A4_3_3,
    A4_4_1,
    A4_4_2,
    A4_4_3,
    A4_4_4,
    A4_5,
    A4_7,
    A4_8,
    A5_1_1,
    A5_2,
    A6_2_1,
    A7_5_1,
    A7_5_2,
    A7_5_3,
    /// Two hands for one move, clock pressed (2023 only).
    A7_5_4,
    /// The illegal-move penalty, which depends on time control and supervision.
    A7_5_5,
    /// 2009: what the Laws leave to the arbiter (Art. 13.4 then).
    ArbiterDiscretion,
}

impl Clause {
    /// The article as printed in the edition (and appendix) in force.
    pub fn cite(self, config: &Config) -> String {
        let unsupervised = config.article4_on_claim_only();
        let text = match config.laws {
            Laws::Fide2023 => match self {
                Clause::A4_1 => "4.1",
                Clause::A4_2_1 => "4.2.1",
                Clause::A4_3_1 => "4.3.1",
                Clause::A4_3_2 => "4.3.2",
                Clause::A4_3_3 => "4.3.3",
                Clause::A4_4_1 => "4.4.1",
                Clause::A4_4_2 => "4.4.2",
                Clause::A4_4_3 => "4.4.3",
                Clause::A4_4_4 => "4.4.4",
                Clause::A4_5 => "4.5",
                Clause::A4_7 => "4.7",
                Clause::A4_8 => "4.8",
                Clause::A5_1_1 => "5.1.1",
                Clause::A5_2 => "5.2",
                Clause::A6_2_1 => "6.2.1",
                Clause::A7_5_1 => "7.5.1",
                Clause::A7_5_2 => "7.5.2",
                Clause::A7_5_3 => "7.5.3",
                Clause::A7_5_4 => "7.5.4",
                Clause::A7_5_5 => match (config.time_control, unsupervised) {
                    (TimeControl::Standard, _) => "7.5.5",
                    (TimeControl::Rapid, true) => "A.5.2",
                    (TimeControl::Blitz, true) => "B.3",
                    (_, false) => "A.3",
                },
                Clause::ArbiterDiscretion => "12.9",
            },
            Laws::Fide2009 => match self {
                Clause::A4_1 => "4.1",
                Clause::A4_2_1 => "4.2",
                Clause::A4_3_1 => "4.3a",
                Clause::A4_3_2 => "4.3b",
                Clause::A4_3_3 => "4.3c",
                Clause::A4_4_1 => "4.4a",
                Clause::A4_4_2 => "4.4b",
                Clause::A4_4_3 => "4.4c",
                Clause::A4_4_4 => "4.4d",
                Clause::A4_5 => "4.5",
                Clause::A4_7 => "4.6",
                Clause::A4_8 => "4.7",
                Clause::A5_1_1 => "5.1a",
                Clause::A5_2 => "5.2",
                Clause::A6_2_1 => "6.7a",
                Clause::A7_5_1 | Clause::A7_5_2 => "7.4a",
                Clause::A7_5_3 | Clause::A7_5_4 | Clause::ArbiterDiscretion => "13.4",
                Clause::A7_5_5 => match (config.time_control, unsupervised) {
                    (TimeControl::Rapid, true) => "A.4c",
                    (TimeControl::Blitz, true) => "B.3c",
                    _ => "7.4b",
                },
            },
        };
        text.to_owned()
    }
}
