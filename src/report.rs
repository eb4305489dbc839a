//! What a review leaves for people: `events.jsonl` and `rulings.jsonl` (written and
//! flushed line by line, so a crash loses nothing already ruled), `game.pgn`,
//! `report.html` with the evidence frames of every ruling, and `summary.json`.
//!
//! Pure (no OpenCV): thumbnails arrive as JPEG bytes.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use shakmaty::{Color, Square};

use crate::geometry::Homography;

use crate::rules::{BoardView, Event, EventKind, Ruling, RulingKind};

/// Why the review output could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot write {path}: {source}")]
    Io { path: String, source: std::io::Error },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReportError + '_ {
    move |source| ReportError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The events of one player's turn at the board, in order.
#[derive(Debug, Clone, Default)]
struct Ply {
    player: Option<Color>,
    events: Vec<Event>,
}

/// A ruling with the frames that prove it.
#[derive(Debug, Clone)]
pub struct RulingWithEvidence {
    pub ruling: Ruling,
    pub frames: Vec<u64>,
}

/// Writes a review's output folder as the pipeline produces it.
pub struct ReviewWriter {
    dir: PathBuf,
    events_out: BufWriter<File>,
    rulings_out: BufWriter<File>,
    events: Vec<Event>,
    rulings: Vec<RulingWithEvidence>,
    plies: Vec<Ply>,
    open: Ply,
    last_placement: Option<String>,
    thumbs: ThumbnailRing,
    saved: std::collections::HashSet<u64>,
    warnings: Vec<String>,
    error: Option<ReportError>,
    /// Board coordinates to thumbnail pixels, to mark the squares on the evidence.
    marker: Option<Homography>,
}

/// How many frames of thumbnails to keep for evidence (about 30 s at 20 fps).
pub const THUMBNAILS_KEPT: usize = 600;
/// Evidence frames shown per ruling.
const EVIDENCE_FRAMES: usize = 6;

impl ReviewWriter {
    /// Creates `dir` (and `dir/evidence`) and opens the line-by-line outputs.
    pub fn create(dir: &Path) -> Result<ReviewWriter, ReportError> {
        let evidence = dir.join("evidence");
        std::fs::create_dir_all(&evidence).map_err(io(&evidence))?;
        let ep = dir.join("events.jsonl");
        let rp = dir.join("rulings.jsonl");
        Ok(ReviewWriter {
            dir: dir.to_path_buf(),
            events_out: BufWriter::new(File::create(&ep).map_err(io(&ep))?),
            rulings_out: BufWriter::new(File::create(&rp).map_err(io(&rp))?),
            events: Vec::new(),
            rulings: Vec::new(),
            plies: Vec::new(),
            open: Ply::default(),
            last_placement: None,
            thumbs: ThumbnailRing::new(THUMBNAILS_KEPT),
            saved: Default::default(),
            warnings: Vec::new(),
            error: None,
            marker: None,
        })
    }

    /// Marks the squares of each evidence frame's events (touched, lifted, placed) on
    /// its thumbnail; `board_to_thumbnail` maps board coordinates to thumbnail pixels.
    pub fn mark_squares(&mut self, board_to_thumbnail: Homography) {
        self.marker = Some(board_to_thumbnail);
    }

    fn keep_error(&mut self, r: Result<(), ReportError>) {
        if let Err(e) = r {
            self.error.get_or_insert(e);
        }
    }

    fn write_line<T: serde::Serialize>(out: &mut BufWriter<File>, value: &T, path: &Path) -> Result<(), ReportError> {
        let line = serde_json::to_string(value).map_err(|e| ReportError::Io {
            path: path.display().to_string(),
            source: e.into(),
        })?;
        writeln!(out, "{line}").map_err(io(path))?;
        out.flush().map_err(io(path))
    }

    pub fn event(&mut self, e: &Event) {
        let path = self.dir.join("events.jsonl");
        let r = Self::write_line(&mut self.events_out, e, &path);
        self.keep_error(r);
        self.events.push(e.clone());
        let player = match e.kind {
            EventKind::Touch { by, .. }
            | EventKind::PossibleTouch { by, .. }
            | EventKind::Lift { by, .. }
            | EventKind::Place { by, .. } => Some(by),
            _ => None,
        };
        if self.open.player.is_none() {
            self.open.player = player;
        }
        self.open.events.push(e.clone());
        // A board that changed closes the turn.
        if let EventKind::Board(view) = &e.kind {
            let text = board_text(view);
            if self.last_placement.as_ref() != Some(&text) {
                let had_hands = self.open.events.iter().any(|e| !matches!(e.kind, EventKind::Board(_)));
                self.last_placement = Some(text);
                if had_hands {
                    self.plies.push(std::mem::take(&mut self.open));
                }
            }
        }
    }

    pub fn ruling(&mut self, r: &Ruling) {
        let path = self.dir.join("rulings.jsonl");
        let res = Self::write_line(&mut self.rulings_out, r, &path);
        self.keep_error(res);
        let frames = self.evidence_for(r);
        for &f in &frames {
            self.save_thumbnail(f);
        }
        self.rulings.push(RulingWithEvidence {
            ruling: r.clone(),
            frames,
        });
    }

    /// Keeps this frame's thumbnail for a while, in case a ruling needs it.
    pub fn frame(&mut self, frame: u64, thumbnail: Option<&[u8]>) {
        if let Some(jpeg) = thumbnail {
            self.thumbs.push(frame, jpeg);
        }
    }

    pub fn warning(&mut self, message: &str) {
        self.warnings.push(message.to_string());
    }

    /// The turn a ruling is about: the latest closed turn of its player, else the one
    /// going on; its touches, lift and place frames, then the ruling's own frame.
    fn evidence_for(&self, r: &Ruling) -> Vec<u64> {
        let ply = self
            .plies
            .iter()
            .rev()
            .find(|p| p.player == Some(r.player))
            .filter(|_| self.open.player != Some(r.player));
        let ply = ply.unwrap_or(&self.open);
        let mut frames: Vec<u64> = ply
            .events
            .iter()
            .filter(|e| !matches!(e.kind, EventKind::Board(_)))
            .filter_map(|e| e.frame)
            .collect();
        if let Some(f) = r.frame {
            frames.push(f);
        }
        frames.dedup();
        if frames.len() > EVIDENCE_FRAMES {
            let last = frames[frames.len() - 1];
            frames.truncate(EVIDENCE_FRAMES - 1);
            frames.push(last);
        }
        frames
    }

    fn save_thumbnail(&mut self, frame: u64) {
        if self.saved.contains(&frame) {
            return;
        }
        if let Some(jpeg) = self.thumbs.get(frame) {
            let path = self.dir.join("evidence").join(format!("f{frame}.jpg"));
            let marks: Vec<(Square, [u8; 3])> = self
                .events
                .iter()
                .filter(|e| e.frame == Some(frame))
                .filter_map(|e| match e.kind {
                    EventKind::Touch { square, .. } => Some((square, [255, 210, 0])),
                    EventKind::PossibleTouch { square, .. } => Some((square, [255, 140, 0])),
                    EventKind::Lift { square, .. } => Some((square, [60, 140, 255])),
                    EventKind::Place { square, .. } => Some((square, [40, 220, 90])),
                    _ => None,
                })
                .collect();
            let marked = self
                .marker
                .as_ref()
                .filter(|_| !marks.is_empty())
                .and_then(|h| mark(jpeg, h, &marks));
            let res = std::fs::write(&path, marked.as_deref().unwrap_or(jpeg)).map_err(io(&path));
            self.keep_error(res);
            self.saved.insert(frame);
        }
    }

    /// Writes `game.pgn`, `report.html` and `summary.json`; returns the report's path.
    pub fn finish(mut self, title: &str, summary: &serde_json::Value) -> Result<PathBuf, ReportError> {
        if !self.open.events.is_empty() {
            let open = std::mem::take(&mut self.open);
            self.plies.push(open);
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let pgn_path = self.dir.join("game.pgn");
        std::fs::write(&pgn_path, pgn(title, &self.rulings)).map_err(io(&pgn_path))?;
        let html_path = self.dir.join("report.html");
        std::fs::write(&html_path, self.html(title, summary)).map_err(io(&html_path))?;
        let sum_path = self.dir.join("summary.json");
        let mut summary = summary.clone();
        if let Some(obj) = summary.as_object_mut() {
            obj.insert("warnings".into(), serde_json::json!(self.warnings));
        }
        std::fs::write(&sum_path, serde_json::to_string_pretty(&summary).unwrap_or_default()).map_err(io(&sum_path))?;
        Ok(html_path)
    }

    fn html(&self, title: &str, summary: &serde_json::Value) -> String {
        let mut h = String::new();
        let moves: Vec<&RulingWithEvidence> = self
            .rulings
            .iter()
            .filter(|r| matches!(r.ruling.kind, RulingKind::Move { .. }))
            .collect();
        let findings: Vec<&RulingWithEvidence> = self
            .rulings
            .iter()
            .filter(|r| !matches!(r.ruling.kind, RulingKind::Move { .. }))
            .collect();
        let _ = write!(
            h,
            "<!doctype html><html lang=en><meta charset=utf-8><meta name=viewport content='width=device-width,initial-scale=1'>\
             <title>arbiter review: {t}</title><style>{CSS}</style><body><h1>Review: {t}</h1>",
            t = esc(title)
        );
        let _ = write!(h, "<p class=meta>{}</p>", esc(&summary_line(summary)));
        // The game.
        let _ = write!(h, "<h2>The game</h2><ol class=moves>");
        for pair in moves.chunks(2) {
            let _ = write!(h, "<li>");
            for m in pair {
                if let RulingKind::Move { san, .. } = &m.ruling.kind {
                    let _ = write!(
                        h,
                        "<span class=move title='t={:.2}s, frame {}'>{}</span> ",
                        m.ruling.t,
                        m.ruling.frame.map(|f| f.to_string()).unwrap_or_default(),
                        esc(san)
                    );
                }
            }
            let _ = write!(h, "</li>");
        }
        let _ = write!(h, "</ol>");
        // Rulings other than moves.
        let _ = write!(h, "<h2>Rulings</h2>");
        if findings.is_empty() {
            let _ = write!(
                h,
                "<p class=ok>No touch-move or illegal-move violation, and nothing else to rule on.</p>"
            );
        }
        for r in &findings {
            let kind = kind_name(&r.ruling.kind);
            let class = match r.ruling.kind {
                RulingKind::TouchMove { .. } | RulingKind::IllegalMove { .. } | RulingKind::Sanction { .. } => "alert",
                RulingKind::GameEnd { .. } => "end",
                _ => "note",
            };
            let _ = write!(
                h,
                "<section class='ruling {class}'><h3>{kind} <span class=article>Art. {a}</span></h3><p>{s}</p>",
                kind = esc(kind),
                a = esc(&r.ruling.article),
                s = esc(&r.ruling.summary())
            );
            if let Some(n) = &r.ruling.note {
                let _ = write!(h, "<p class=note>{}</p>", esc(n));
            }
            self.strip(&mut h, &r.frames);
            let _ = write!(h, "</section>");
        }
        // Touches per move.
        let _ = write!(
            h,
            "<h2>Touches, move by move</h2><p class=meta>On the pictures: <b style='color:#c9a400'>touch</b>, \
             <b style='color:#d97800'>possible touch</b>, <b style='color:#3c8cff'>lift</b>, \
             <b style='color:#1fa650'>place</b>.</p><table class=timeline><tr><th>turn</th><th>what the camera saw</th><th>evidence</th></tr>"
        );
        for (i, ply) in self.plies.iter().enumerate() {
            let who = ply
                .player
                .map(|c| if c == Color::White { "White" } else { "Black" })
                .unwrap_or("-");
            let mut steps = String::new();
            let mut frames = Vec::new();
            for e in &ply.events {
                let (name, sq) = match &e.kind {
                    EventKind::Touch { square, .. } => ("touch", Some(*square)),
                    EventKind::PossibleTouch { square, .. } => ("possible touch", Some(*square)),
                    EventKind::Lift { square, .. } => ("lift", Some(*square)),
                    EventKind::Place { square, .. } => ("place", Some(*square)),
                    EventKind::Board(_) => ("settled", None),
                    _ => ("other", None),
                };
                let class = if name == "possible touch" { " class=doubt" } else { "" };
                let _ = write!(
                    steps,
                    "<span{class}>{name}{} <small>f{}</small></span> ",
                    sq.map(|s| format!(" {s}")).unwrap_or_default(),
                    e.frame.map(|f| f.to_string()).unwrap_or_default()
                );
                if let Some(f) = e.frame.filter(|f| self.saved.contains(f)) {
                    frames.push(f);
                }
            }
            frames.dedup();
            let _ = write!(h, "<tr><td>{} {}</td><td>{steps}</td><td>", i + 1, who);
            self.strip(&mut h, &frames);
            let _ = write!(h, "</td></tr>");
        }
        let _ = write!(h, "</table>");
        if !self.warnings.is_empty() {
            let _ = write!(h, "<h2>Warnings</h2><ul>");
            for w in &self.warnings {
                let _ = write!(h, "<li>{}</li>", esc(w));
            }
            let _ = write!(h, "</ul>");
        }
        let _ = write!(
            h,
            "<p class=meta>Files: <a href=events.jsonl>events.jsonl</a> · <a href=rulings.jsonl>rulings.jsonl</a> · \
             <a href=game.pgn>game.pgn</a> · <a href=summary.json>summary.json</a>. A possible touch is contact the \
             camera could not tell from a brush or a pass: it is shown, never ruled on.</p></body></html>"
        );
        h
    }

    fn strip(&self, h: &mut String, frames: &[u64]) {
        let _ = write!(h, "<div class=strip>");
        for f in frames {
            if self.saved.contains(f) {
                let _ = write!(
                    h,
                    "<figure><img src='evidence/f{f}.jpg' alt='frame {f}'><figcaption>frame {f}</figcaption></figure>"
                );
            }
        }
        let _ = write!(h, "</div>");
    }
}

/// The thumbnail with each square outlined in its colour (touch yellow, possible
/// touch orange, lift blue, place green); `None` when the picture cannot be decoded.
fn mark(jpeg: &[u8], board_to_px: &Homography, marks: &[(Square, [u8; 3])]) -> Option<Vec<u8>> {
    let mut img = image::load_from_memory_with_format(jpeg, image::ImageFormat::Jpeg)
        .ok()?
        .to_rgb8();
    for &(sq, colour) in marks {
        let (f, r) = (u32::from(sq.file()) as f64, u32::from(sq.rank()) as f64);
        let corners = [(f, r), (f + 1.0, r), (f + 1.0, r + 1.0), (f, r + 1.0)];
        let px: Vec<(f64, f64)> = corners.iter().filter_map(|&c| board_to_px.apply(c)).collect();
        if px.len() != 4 {
            continue;
        }
        for i in 0..4 {
            line(&mut img, px[i], px[(i + 1) % 4], image::Rgb(colour));
        }
    }
    let mut out = std::io::Cursor::new(Vec::new());
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85)
        .encode_image(&img)
        .ok()?;
    Some(out.into_inner())
}

/// A two-pixel line (small pictures: stepping along it is enough).
fn line(img: &mut image::RgbImage, a: (f64, f64), b: (f64, f64), colour: image::Rgb<u8>) {
    let steps = ((b.0 - a.0).abs().max((b.1 - a.1).abs()).ceil() as usize).clamp(1, 4096);
    for i in 0..=steps {
        let t = i as f64 / steps as f64;
        let (x, y) = (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
        for (dx, dy) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)] {
            let (px, py) = ((x + dx - 0.5).floor(), (y + dy - 0.5).floor());
            if px >= 0.0 && py >= 0.0 && (px as u32) < img.width() && (py as u32) < img.height() {
                img.put_pixel(px as u32, py as u32, colour);
            }
        }
    }
}

const CSS: &str = "body{font:16px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:70em;padding:0 1em;color:#222}\
h1{font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}.meta{color:#555}\
ol.moves{columns:3;font-size:1.15em}.move{margin-right:.6em}.ok{color:#175}\
section.ruling{border-left:6px solid #888;padding:.3em 1em;margin:1em 0;background:#f7f7f7}\
section.alert{border-color:#c22;background:#fdf0f0}section.end{border-color:#257}.article{font-weight:normal;color:#555}\
.note{font-style:italic}.strip{display:flex;gap:.5em;flex-wrap:wrap}figure{margin:0}figure img{width:160px;border-radius:3px}\
figcaption{font-size:.8em;color:#555;text-align:center}table.timeline{border-collapse:collapse;width:100%}\
.timeline td,.timeline th{border-top:1px solid #ddd;padding:.4em;vertical-align:top;text-align:left}\
.timeline .strip img{width:110px}.doubt{color:#a60}";

fn summary_line(summary: &serde_json::Value) -> String {
    let get = |k: &str| {
        summary
            .get(k)
            .map(|v| v.to_string().trim_matches('"').to_string())
            .unwrap_or_default()
    };
    format!(
        "Source {}, {} frames; laws {}, {}; processed in {} s.",
        get("source"),
        get("frames"),
        get("laws"),
        get("time_control"),
        get("wall_s")
    )
}

fn kind_name(k: &RulingKind) -> &'static str {
    match k {
        RulingKind::Move { .. } => "Move",
        RulingKind::TouchMove { .. } => "Touch-move violation",
        RulingKind::IllegalMove { .. } => "Illegal move",
        RulingKind::Sanction { .. } => "Sanction",
        RulingKind::Irregular { .. } => "Irregularity",
        RulingKind::GameEnd { .. } => "Game end",
        RulingKind::Claim { .. } => "Claim",
        RulingKind::UnexplainedBoard { .. } => "Board not explained by any legal move",
    }
}

fn board_text(view: &BoardView) -> String {
    match view {
        BoardView::Placement(b) => b.board_fen().to_string(),
        BoardView::Colors(c) => c.to_string(),
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\'', "&#39;")
        .replace('"', "&quot;")
}

/// The game score as PGN: the moves with their times as comments (no clock was
/// seen, so no clock annotations), and every other ruling as a comment where it fell.
pub fn pgn(title: &str, rulings: &[RulingWithEvidence]) -> String {
    let result = rulings
        .iter()
        .rev()
        .find_map(|r| match &r.ruling.kind {
            RulingKind::GameEnd {
                result, stands: true, ..
            } => Some(result.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "*".to_string());
    let mut out = String::new();
    let _ = writeln!(out, "[Event \"arbiter review\"]");
    let _ = writeln!(out, "[Site \"{}\"]", title.replace('"', "'"));
    let _ = writeln!(
        out,
        "[Date \"????.??.??\"]\n[Round \"-\"]\n[White \"?\"]\n[Black \"?\"]"
    );
    let _ = writeln!(out, "[Result \"{result}\"]\n");
    let mut ply = 0usize;
    let mut body = String::new();
    for r in rulings {
        match &r.ruling.kind {
            RulingKind::Move { san, .. } => {
                if ply.is_multiple_of(2) {
                    // Glued to its move so that wrapping never splits them.
                    let _ = write!(body, "{}.{GLUE}", ply / 2 + 1);
                }
                let frame = r.ruling.frame.map(|f| format!(", frame {f}")).unwrap_or_default();
                let _ = write!(body, "{san} {{t={:.2}s{frame}}} ", r.ruling.t);
                ply += 1;
            }
            _ => {
                let text = r.ruling.summary().replace(['{', '}'], "");
                let _ = write!(body, "{{{text}}} ");
            }
        }
    }
    let _ = write!(body, "{result}");
    out.push_str(&wrap(&body, 79).replace(GLUE, " "));
    out.push('\n');
    out
}

/// Stands for a space that line wrapping must not break.
const GLUE: char = '\u{a0}';

fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split(' ') {
        if line + word.len() + 1 > width && line > 0 {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += word.len();
    }
    out
}

/// The last few seconds of thumbnails, so that a ruling's evidence frames can be
/// saved once the ruling is known (events come out a little after their frames).
pub struct ThumbnailRing {
    keep: usize,
    order: VecDeque<u64>,
    frames: HashMap<u64, Vec<u8>>,
}

impl ThumbnailRing {
    pub fn new(keep: usize) -> Self {
        ThumbnailRing {
            keep,
            order: VecDeque::new(),
            frames: HashMap::new(),
        }
    }

    pub fn push(&mut self, frame: u64, jpeg: &[u8]) {
        self.order.push_back(frame);
        self.frames.insert(frame, jpeg.to_vec());
        while self.order.len() > self.keep {
            if let Some(old) = self.order.pop_front() {
                self.frames.remove(&old);
            }
        }
    }

    pub fn get(&self, frame: u64) -> Option<&[u8]> {
        self.frames.get(&frame).map(Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Config, Engine, parse_event_line};

    #[test]
    fn evidence_squares_are_outlined_where_the_calibration_puts_them() {
        // A grey 80x80 picture of a board filling it: 10 px a square, a1 bottom-left.
        let grey = image::RgbImage::from_pixel(80, 80, image::Rgb([128, 128, 128]));
        let mut jpeg = std::io::Cursor::new(Vec::new());
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 95)
            .encode_image(&grey)
            .unwrap();
        let board_to_px = Homography([[10.0, 0.0, 0.0], [0.0, -10.0, 80.0], [0.0, 0.0, 1.0]]);
        let marked = mark(&jpeg.into_inner(), &board_to_px, &[(Square::B2, [40, 220, 90])]).unwrap();
        let img = image::load_from_memory(&marked).unwrap().to_rgb8();
        // b2 spans x 10..20, y 60..70: its border is green, its middle and a1 stay grey.
        let green = |x, y| {
            let p = img.get_pixel(x, y);
            p[1] > 170 && p[0] < 120
        };
        assert!(green(15, 60) && green(10, 65));
        assert!(!green(15, 65) && !green(5, 75));
    }

    #[test]
    fn a_review_folder_from_an_event_stream() {
        let dir = std::env::temp_dir().join(format!("arbiter-report-{}", std::process::id()));
        let mut w = ReviewWriter::create(&dir).unwrap();
        let mut engine = Engine::new(Config::default()).unwrap();
        let lines = [
            r#"{"t":0.1,"frame":2,"type":"board","placement":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"}"#,
            r#"{"t":1.0,"frame":20,"type":"touch","by":"white","square":"g1"}"#,
            r#"{"t":1.5,"frame":30,"type":"touch","by":"white","square":"e2"}"#,
            r#"{"t":1.6,"frame":32,"type":"lift","by":"white","square":"e2"}"#,
            r#"{"t":1.9,"frame":38,"type":"place","by":"white","square":"e4"}"#,
            r#"{"t":1.9,"frame":38,"type":"board","placement":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"}"#,
        ];
        for (i, l) in lines.iter().enumerate() {
            let e = parse_event_line(l, i + 1).unwrap();
            w.frame(e.frame.unwrap(), Some(b"jpeg"));
            w.event(&e);
            for r in engine.push(&e) {
                w.ruling(&r);
            }
        }
        for r in engine.finish(2.0, Some(40)) {
            w.ruling(&r);
        }
        let html = w.finish("test", &serde_json::json!({"source": "test"})).unwrap();
        let page = std::fs::read_to_string(html).unwrap();
        assert!(page.contains("Touch-move violation"), "{page}");
        assert!(page.contains("evidence/f20.jpg"));
        let pgn = std::fs::read_to_string(dir.join("game.pgn")).unwrap();
        assert!(pgn.contains("1. e4 {t="), "{pgn}");
        assert_eq!(
            std::fs::read_to_string(dir.join("events.jsonl"))
                .unwrap()
                .lines()
                .count(),
            6
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}
