//! The engine's input: one JSON object per line (see docs/rules.md), parsed with errors that name the line.

use std::io::BufRead;

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Board, ByColor, CastlingMode, Chess, Color, Square};

/// One thing the cameras saw, at `t` seconds from the start (`frame` is copied into rulings as evidence).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawEvent", into = "RawEvent")]
pub struct Event {
    pub t: f64,
    pub frame: Option<u64>,
    pub kind: EventKind,
}

/// What happened. Squares are where the piece stood (touch, lift) or landed (place).
#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    /// A hand of `by` made deliberate contact with the piece on `square`.
    Touch { by: Color, square: Square },
    /// A hand of `by` was on the piece on `square`, but the camera cannot tell a
    /// deliberate touch from a brush or a pass (Art. 4.2.2: contact that may be
    /// accidental). Recorded as evidence; it never creates a touch-move duty.
    PossibleTouch { by: Color, square: Square },
    /// The piece on `square` left the board in a hand of `by`.
    Lift { by: Color, square: Square },
    /// `by` put a piece down on `square` and released it.
    Place { by: Color, square: Square },
    /// The board has settled (no hand over it) and shows this.
    Board(BoardView),
    /// `by` pressed the clock.
    Clock { by: Color },
    /// Both hands of `by` took part in the move being made (4.1: one hand only; 7.5.4 once the clock is pressed).
    TwoHands { by: Color },
    /// `by` announced an adjustment ("j'adoube") before touching.
    Adjust { by: Color },
    /// A claim by `by` to the arbiter.
    Claim { by: Color, about: ClaimAbout },
    /// The game's starting position (a full FEN), overriding the configured start.
    Start { fen: String },
}

/// A settled board as the camera reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardView {
    /// Every piece with its type (the first field of a FEN).
    Placement(Board),
    /// Only the colours (a camera that cannot tell types); the engine infers the types from the game.
    Colors(ColorMap),
}

/// Which squares hold a white piece and which a black one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ColorMap {
    pub by_color: ByColor<Bitboard>,
}

impl ColorMap {
    /// The colours of a full placement.
    pub fn of(board: &Board) -> ColorMap {
        ColorMap {
            by_color: ByColor {
                white: board.white(),
                black: board.black(),
            },
        }
    }

    pub fn color_at(&self, sq: Square) -> Option<Color> {
        if self.by_color.white.contains(sq) {
            Some(Color::White)
        } else if self.by_color.black.contains(sq) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// Parses the 8 ranks (rank 8 first) of `w`, `b` and digits, like the first field of a FEN.
    pub fn parse(text: &str) -> Result<ColorMap, String> {
        let mut map = ColorMap {
            by_color: ByColor {
                white: Bitboard::EMPTY,
                black: Bitboard::EMPTY,
            },
        };
        let ranks: Vec<&str> = text.split('/').collect();
        if ranks.len() != 8 {
            return Err(format!(
                "`colors` needs 8 ranks separated by `/`, found {}",
                ranks.len()
            ));
        }
        for (i, rank_text) in ranks.iter().enumerate() {
            let rank = 7 - i as u32;
            let mut file = 0u32;
            for ch in rank_text.chars() {
                let step = match ch {
                    '1'..='8' => ch as u32 - '0' as u32,
                    'w' | 'b' => 1,
                    _ => return Err(format!("`colors` may hold only w, b and digits 1-8, found `{ch}`")),
                };
                if file + step > 8 {
                    return Err(format!("`colors` rank {} is longer than 8 squares", rank + 1));
                }
                if ch == 'w' || ch == 'b' {
                    let sq = Square::new(rank * 8 + file);
                    let side = if ch == 'w' {
                        &mut map.by_color.white
                    } else {
                        &mut map.by_color.black
                    };
                    side.add(sq);
                }
                file += step;
            }
            if file != 8 {
                return Err(format!("`colors` rank {} has {file} squares, not 8", rank + 1));
            }
        }
        Ok(map)
    }
}

impl std::fmt::Display for ColorMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for rank in (0..8u32).rev() {
            let mut empty = 0;
            for file in 0..8u32 {
                match self.color_at(Square::new(rank * 8 + file)) {
                    None => empty += 1,
                    Some(color) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        f.write_str(if color == Color::White { "w" } else { "b" })?;
                    }
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if rank > 0 {
                f.write_str("/")?;
            }
        }
        Ok(())
    }
}

/// What a claim is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimAbout {
    TouchMove,
    IllegalMove,
}

/// A line of the event stream that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// 1-based line number in the stream.
    pub line: usize,
    pub message: String,
}

/// Parses one line (`line` is its 1-based number, used in the error).
pub fn parse_event_line(text: &str, line: usize) -> Result<Event, ParseError> {
    serde_json::from_str::<Event>(text).map_err(|err| ParseError {
        line,
        message: describe_json_error(&err),
    })
}

/// Reads a whole JSON Lines stream; blank lines are skipped. Stops at the first bad line.
pub fn read_events<R: BufRead>(reader: R) -> Result<Vec<Event>, ParseError> {
    let mut events = Vec::new();
    for (index, text) in reader.lines().enumerate() {
        let line = index + 1;
        let text = text.map_err(|err| ParseError {
            line,
            message: format!("cannot read the line: {err}"),
        })?;
        if text.trim().is_empty() {
            continue;
        }
        events.push(parse_event_line(&text, line)?);
    }
    Ok(events)
}

fn describe_json_error(err: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let text = err.to_string();
    // serde_json appends " at line 1 column N"; the column helps, the line 1 would mislead.
    let detail = match text.rfind(" at line ") {
        Some(pos) => format!("{} (column {})", &text[..pos], err.column()),
        None => text,
    };
    match err.classify() {
        Category::Eof => format!("truncated JSON object: {detail}"),
        Category::Syntax => format!("not valid JSON: {detail}"),
        Category::Data | Category::Io => detail,
    }
}

/// The wire shape of an event: every field optional, checked by `TryFrom` with messages that say what was expected.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct RawEvent {
    t: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    frame: Option<u64>,
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    square: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    placement: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    colors: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    about: Option<ClaimAbout>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fen: Option<String>,
}

const TYPES: &str = "touch, possible-touch, lift, place, board, clock, two-hands, adjust, claim, start";

impl TryFrom<RawEvent> for Event {
    type Error = String;

    fn try_from(raw: RawEvent) -> Result<Event, String> {
        let t = raw.t.ok_or("missing field `t` (seconds from the start, a number)")?;
        if !t.is_finite() {
            return Err("`t` must be a finite number".to_owned());
        }
        let kind_name = raw
            .kind
            .as_deref()
            .ok_or(format!("missing field `type` (one of {TYPES})"))?;
        let by = || parse_color(raw.by.as_deref(), kind_name);
        let square = || parse_square(raw.square.as_deref(), kind_name);
        let kind = match kind_name {
            "touch" => EventKind::Touch {
                by: by()?,
                square: square()?,
            },
            "possible-touch" => EventKind::PossibleTouch {
                by: by()?,
                square: square()?,
            },
            "lift" => EventKind::Lift {
                by: by()?,
                square: square()?,
            },
            "place" => EventKind::Place {
                by: by()?,
                square: square()?,
            },
            "clock" => EventKind::Clock { by: by()? },
            "two-hands" => EventKind::TwoHands { by: by()? },
            "adjust" => EventKind::Adjust { by: by()? },
            "claim" => EventKind::Claim {
                by: by()?,
                about: raw
                    .about
                    .ok_or("`claim` needs `about`: \"touch-move\" or \"illegal-move\"")?,
            },
            "board" => EventKind::Board(parse_board(raw.placement.as_deref(), raw.colors.as_deref())?),
            "start" => {
                let fen = raw.fen.ok_or("`start` needs `fen` (a full FEN)")?;
                check_fen(&fen)?;
                EventKind::Start { fen }
            }
            other => return Err(format!("unknown event type `{other}`; expected one of {TYPES}")),
        };
        Ok(Event {
            t,
            frame: raw.frame,
            kind,
        })
    }
}

impl From<Event> for RawEvent {
    fn from(event: Event) -> RawEvent {
        let mut raw = RawEvent {
            t: Some(event.t),
            frame: event.frame,
            ..RawEvent::default()
        };
        let (name, by, square) = match event.kind {
            EventKind::Touch { by, square } => ("touch", Some(by), Some(square)),
            EventKind::PossibleTouch { by, square } => ("possible-touch", Some(by), Some(square)),
            EventKind::Lift { by, square } => ("lift", Some(by), Some(square)),
            EventKind::Place { by, square } => ("place", Some(by), Some(square)),
            EventKind::Clock { by } => ("clock", Some(by), None),
            EventKind::TwoHands { by } => ("two-hands", Some(by), None),
            EventKind::Adjust { by } => ("adjust", Some(by), None),
            EventKind::Claim { by, about } => {
                raw.about = Some(about);
                ("claim", Some(by), None)
            }
            EventKind::Board(BoardView::Placement(board)) => {
                raw.placement = Some(board.board_fen().to_string());
                ("board", None, None)
            }
            EventKind::Board(BoardView::Colors(map)) => {
                raw.colors = Some(map.to_string());
                ("board", None, None)
            }
            EventKind::Start { fen } => {
                raw.fen = Some(fen);
                ("start", None, None)
            }
        };
        raw.kind = Some(name.to_owned());
        raw.by = by.map(|c| c.to_string());
        raw.square = square.map(|s| s.to_string());
        raw
    }
}

fn parse_color(text: Option<&str>, kind: &str) -> Result<Color, String> {
    match text {
        Some("white") => Ok(Color::White),
        Some("black") => Ok(Color::Black),
        Some(other) => Err(format!("`by` must be \"white\" or \"black\", found \"{other}\"")),
        None => Err(format!("`{kind}` needs `by` (\"white\" or \"black\")")),
    }
}

fn parse_square(text: Option<&str>, kind: &str) -> Result<Square, String> {
    let text = text.ok_or(format!("`{kind}` needs `square` (lowercase algebraic, e.g. \"e2\")"))?;
    let lowercase = text.len() == 2 && text.bytes().all(|b| !b.is_ascii_uppercase());
    match Square::from_ascii(text.as_bytes()) {
        Ok(sq) if lowercase => Ok(sq),
        _ => Err(format!("bad square \"{text}\"; expected lowercase algebraic a1..h8")),
    }
}

fn parse_board(placement: Option<&str>, colors: Option<&str>) -> Result<BoardView, String> {
    match (placement, colors) {
        (Some(text), _) => Board::from_ascii_board_fen(text.as_bytes())
            .map(BoardView::Placement)
            .map_err(|err| format!("bad `placement` \"{text}\": {err} (expected the first field of a FEN)")),
        (None, Some(text)) => ColorMap::parse(text).map(BoardView::Colors),
        (None, None) => Err("`board` needs `placement` (first field of a FEN) or `colors`".to_owned()),
    }
}

/// A start FEN must parse and give a playable position (Chess960 mode accepts every standard FEN too).
fn check_fen(text: &str) -> Result<(), String> {
    let fen = Fen::from_ascii(text.as_bytes()).map_err(|err| format!("bad `fen` \"{text}\": {err}"))?;
    fen.into_position::<Chess>(CastlingMode::Chess960)
        .map(|_| ())
        .map_err(|err| format!("`fen` \"{text}\" is not a playable position: {err}"))
}
