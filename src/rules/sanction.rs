//! What a completed illegal move costs (7.5.5; A.3, A.5.2, B.3; 2009: 7.4b, A.4c, B.3c).

use shakmaty::{Chess, Color, Position};

use super::config::{Config, Laws, TimeControl};
use super::ruling::Sanction;

/// The sanction for `offender`'s `count`-th completed illegal move, judged in `pos` (the reinstated position).
pub fn for_illegal_move(config: &Config, offender: Color, count: u32, pos: &Chess) -> Sanction {
    let opponent = offender.other();
    let loss_or_draw = || {
        // "unless the opponent cannot checkmate by any series of legal moves" (7.5.5).
        if pos.has_insufficient_material(opponent) {
            Sanction::Draw {
                why: "opponent cannot checkmate".to_owned(),
            }
        } else {
            Sanction::Loss
        }
    };
    let unsupervised = config.article4_on_claim_only();
    match config.laws {
        Laws::Fide2023 => {
            if count >= 2 {
                return loss_or_draw();
            }
            let seconds = if config.time_control == TimeControl::Standard {
                120
            } else {
                60
            };
            Sanction::Time { to: opponent, seconds }
        }
        Laws::Fide2009 => {
            // 2009 B.4 (unsupervised blitz): the opponent may claim the win at the first illegal move.
            if config.time_control == TimeControl::Blitz && unsupervised {
                return loss_or_draw();
            }
            if count >= 3 {
                loss_or_draw()
            } else {
                Sanction::Time {
                    to: opponent,
                    seconds: 120,
                }
            }
        }
    }
}

/// Whether the sanction ends the game, and with which result.
pub fn ends_game(sanction: &Sanction, offender: Color) -> Option<&'static str> {
    match sanction {
        Sanction::Time { .. } => None,
        Sanction::Loss => Some(if offender == Color::White { "0-1" } else { "1-0" }),
        Sanction::Draw { .. } => Some("1/2-1/2"),
    }
}
