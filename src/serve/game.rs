//! One board's game as the arbiter decides it: the engine fed with the board's events, with the arbiter's
//! corrections applied. Pure (no I/O): the same log always gives the same game, which is how a board is rebuilt
//! after a restart and how a correction recomputes everything after it.

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

use super::store::{Correction, Entry, Record};
use crate::rules::{Config, Engine, Event, EventKind, RulesError, Ruling, RulingKind, Variant};

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum GameError {
    #[error(transparent)]
    Rules(#[from] RulesError),
    #[error("there is no move {ply} yet (the game has {moves} half-moves)")]
    NoSuchMove { ply: usize, moves: usize },
    #[error("a correction needs either `san` (the move that was really played) or `fen` (the position after it)")]
    NeedsSanOrFen,
    #[error("`san` replaces a move, so `ply` must be 1 or more")]
    NoMoveZero,
    #[error("{san} is not a legal move in {fen}: {why}")]
    IllegalMove { san: String, fen: String, why: String },
}

/// A ruling of the arbiter's game with the log record that caused it.
#[derive(Clone, Debug, PartialEq)]
pub struct Decided {
    pub cause: u64,
    pub ruling: Ruling,
}

/// The arbiter's game.
pub struct Game {
    config: Config,
    engine: Engine,
    /// Every event so far, with its log number.
    events: Vec<(u64, Event)>,
    /// The arbiter's rulings, in order (moves included).
    pub rulings: Vec<Decided>,
    /// The position before the first move.
    start_fen: String,
    /// Corrections applied so far.
    pub rev: u32,
}

fn mode(config: &Config) -> CastlingMode {
    match config.variant {
        Variant::Chess960 => CastlingMode::Chess960,
        _ => CastlingMode::Standard,
    }
}

impl Game {
    pub fn new(config: Config) -> Result<Game, GameError> {
        let engine = Engine::new(config.clone())?;
        let start_fen = engine.fen();
        Ok(Game {
            config,
            engine,
            events: Vec::new(),
            rulings: Vec::new(),
            start_fen,
            rev: 0,
        })
    }

    /// The game a log describes (events, corrections, end), ignoring the rulings written in it.
    pub fn replay(config: Config, records: &[Record]) -> Result<Game, GameError> {
        let mut game = Game::new(config)?;
        for r in records {
            match &r.entry {
                Entry::Event { event, .. } => {
                    game.push(r.seq, event);
                }
                Entry::Correction { correction, .. } => {
                    game.correct(r.seq, correction)?;
                }
                Entry::End { t, frame } => {
                    game.finish(r.seq, *t, *frame);
                }
                Entry::Ruling { .. } | Entry::Ack { .. } => {}
            }
        }
        Ok(game)
    }

    /// Rules on one event; returns the new rulings (also kept).
    pub fn push(&mut self, seq: u64, event: &Event) -> Vec<Ruling> {
        self.events.push((seq, event.clone()));
        let out = self.engine.push(event);
        if self.moves_count() == 0 && out.iter().all(|r| !matches!(r.kind, RulingKind::Move { .. })) {
            // A `start` event before the first move sets the position corrections go back to.
            self.start_fen = self.engine.fen();
        }
        self.keep(seq, &out);
        out
    }

    /// The end of the source: the engine completes what the board shows.
    pub fn finish(&mut self, seq: u64, t: f64, frame: Option<u64>) -> Vec<Ruling> {
        let out = self.engine.finish(t, frame);
        self.keep(seq, &out);
        out
    }

    fn keep(&mut self, cause: u64, rulings: &[Ruling]) {
        self.rulings.extend(rulings.iter().map(|r| Decided {
            cause,
            ruling: r.clone(),
        }));
    }

    fn moves_count(&self) -> usize {
        self.rulings
            .iter()
            .filter(|d| matches!(d.ruling.kind, RulingKind::Move { .. }))
            .count()
    }

    /// The moves of the arbiter's game, as SAN.
    pub fn moves(&self) -> Vec<String> {
        self.rulings
            .iter()
            .filter_map(|d| match &d.ruling.kind {
                RulingKind::Move { san, .. } => Some(san.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn fen(&self) -> String {
        self.engine.fen()
    }

    pub fn is_over(&self) -> bool {
        self.engine.is_over()
    }

    /// Index in `rulings` of the `ply`-th move (1-based).
    fn move_index(&self, ply: usize) -> Option<usize> {
        self.rulings
            .iter()
            .enumerate()
            .filter(|(_, d)| matches!(d.ruling.kind, RulingKind::Move { .. }))
            .nth(ply.checked_sub(1)?)
            .map(|(i, _)| i)
    }

    fn fen_after(&self, ply: usize) -> String {
        match self.move_index(ply).map(|i| &self.rulings[i].ruling.kind) {
            Some(RulingKind::Move { fen, .. }) => fen.clone(),
            _ => self.start_fen.clone(),
        }
    }

    /// Applies a correction (log record `seq`). Returns the index in `rulings` from which rulings were replaced;
    /// on error nothing changed.
    pub fn correct(&mut self, seq: u64, c: &Correction) -> Result<usize, GameError> {
        let moves = self.moves_count();
        if c.ply > moves {
            return Err(GameError::NoSuchMove { ply: c.ply, moves });
        }
        // (where the arbiter's rulings are cut, the position the engine restarts from, the replacing move ruling)
        let (cut, restart_fen, replaced) = match (&c.san, &c.fen) {
            (Some(san), _) => {
                if c.ply == 0 {
                    return Err(GameError::NoMoveZero);
                }
                let before = self.fen_after(c.ply - 1);
                let (ruling, after) = self.replacement(c.ply, &before, san, c)?;
                let cut = if c.ply == 1 {
                    0
                } else {
                    self.move_index(c.ply - 1).map(|i| i + 1).unwrap_or(0)
                };
                (cut, after, Some(ruling))
            }
            (None, Some(fen)) => {
                // Validate before changing anything.
                Engine::new(Config {
                    start: Some(fen.clone()),
                    ..self.config.clone()
                })?;
                let cut = if c.ply == 0 {
                    0
                } else {
                    self.move_index(c.ply).map(|i| i + 1).unwrap_or(0)
                };
                (cut, fen.clone(), None)
            }
            (None, None) => return Err(GameError::NeedsSanOrFen),
        };
        let engine = Engine::new(Config {
            start: Some(restart_fen),
            ..self.config.clone()
        })?;
        // Replay from the event that completed the corrected move (an opponent's touch or a later board belongs
        // to the next move); a clock press by the mover belonged to the corrected move itself.
        let (from_seq, skip_clock) = match self.move_index(c.ply) {
            Some(i) => (self.rulings[i].cause, Some(self.rulings[i].ruling.player)),
            None => (0, None),
        };
        let replay: Vec<(u64, Event)> = self
            .events
            .iter()
            .filter(|(s, e)| {
                *s >= from_seq
                    && !matches!(e.kind, EventKind::Start { .. })
                    && !(*s == from_seq && matches!(e.kind, EventKind::Clock { by } if Some(by) == skip_clock))
            })
            .cloned()
            .collect();
        self.engine = engine;
        self.rulings.truncate(cut);
        if let Some(r) = replaced {
            self.rulings.push(Decided { cause: seq, ruling: r });
        }
        for (s, e) in replay {
            let out = self.engine.push(&e);
            self.keep(s, &out);
        }
        self.rev += 1;
        Ok(cut)
    }

    /// The move ruling that replaces ply `ply`, and the FEN after it.
    fn replacement(&self, ply: usize, before: &str, san: &str, c: &Correction) -> Result<(Ruling, String), GameError> {
        let illegal = |why: String| GameError::IllegalMove {
            san: san.to_string(),
            fen: before.to_string(),
            why,
        };
        let pos: Chess = Fen::from_ascii(before.as_bytes())
            .map_err(|e| illegal(e.to_string()))?
            .into_position(mode(&self.config))
            .map_err(|e| illegal(e.to_string()))?;
        let mv = San::from_ascii(san.trim().as_bytes())
            .map_err(|e| illegal(e.to_string()))?
            .to_move(&pos)
            .map_err(|e| illegal(e.to_string()))?;
        let san_plus = SanPlus::from_move(pos.clone(), mv).to_string();
        let uci = mv.to_uci(mode(&self.config)).to_string();
        let after = pos.play(mv).map_err(|e| illegal(e.to_string()))?;
        let after_fen = Fen::from_position(&after, EnPassantMode::Legal).to_string();
        let original = &self.rulings[self.move_index(ply).ok_or(GameError::NoSuchMove { ply, moves: 0 })?].ruling;
        let seen = match &original.kind {
            RulingKind::Move { san, .. } => san.clone(),
            _ => String::new(),
        };
        let completed_by = match &original.kind {
            RulingKind::Move { completed_by, .. } => *completed_by,
            _ => unreachable!("move_index finds only moves"),
        };
        let mut note = format!("corrected by the arbiter: the camera saw {seen}");
        if let Some(n) = &c.note {
            note.push_str(&format!(" ({n})"));
        }
        let ruling = Ruling {
            note: Some(note),
            squares: Vec::new(),
            kind: RulingKind::Move {
                san: san_plus,
                uci,
                fen: after_fen.clone(),
                completed_by,
            },
            ..original.clone()
        };
        Ok((ruling, after_fen))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::parse_event_line;

    fn game(lines: &[&str]) -> Game {
        let mut g = Game::new(Config::default()).unwrap();
        for (i, l) in lines.iter().enumerate() {
            g.push(i as u64 + 1, &parse_event_line(l, i + 1).unwrap());
        }
        g
    }

    const E4_E5: [&str; 4] = [
        r#"{"t":1,"frame":1,"type":"board","placement":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"}"#,
        r#"{"t":2,"frame":2,"type":"touch","by":"black","square":"e7"}"#,
        r#"{"t":3,"frame":3,"type":"board","placement":"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"}"#,
        r#"{"t":4,"frame":4,"type":"touch","by":"white","square":"g1"}"#,
    ];

    #[test]
    fn replacing_a_move_recomputes_what_follows() {
        let mut g = game(&E4_E5);
        assert_eq!(g.moves(), vec!["e4", "e5"]);
        g.correct(
            10,
            &Correction {
                ply: 1,
                san: Some("d4".into()),
                fen: None,
                note: None,
            },
        )
        .unwrap();
        // The board still shows e4 for the rest: the engine can no longer explain it.
        assert_eq!(g.moves()[0], "d4");
        assert!(g.rulings[0].ruling.note.as_deref().unwrap().contains("camera saw e4"));
        assert_eq!(g.rev, 1);
    }

    #[test]
    fn setting_the_position_after_a_move() {
        let mut g = game(&E4_E5);
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
        g.correct(
            10,
            &Correction {
                ply: 2,
                san: None,
                fen: Some(fen.into()),
                note: None,
            },
        )
        .unwrap();
        assert_eq!(g.moves(), vec!["e4", "e5"]);
        assert_eq!(g.fen(), fen);
    }

    #[test]
    fn bad_corrections_change_nothing() {
        let mut g = game(&E4_E5);
        let bad = Correction {
            ply: 1,
            san: Some("e5".into()),
            fen: None,
            note: None,
        };
        assert!(matches!(g.correct(10, &bad), Err(GameError::IllegalMove { .. })));
        let late = Correction {
            ply: 7,
            san: Some("e4".into()),
            fen: None,
            note: None,
        };
        assert!(matches!(g.correct(10, &late), Err(GameError::NoSuchMove { .. })));
        let nothing = Correction {
            ply: 1,
            san: None,
            fen: None,
            note: None,
        };
        assert_eq!(g.correct(10, &nothing), Err(GameError::NeedsSanOrFen));
        assert_eq!(g.moves(), vec!["e4", "e5"]);
        assert_eq!(g.rev, 0);
    }
}
