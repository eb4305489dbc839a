//! One board: its source (an event stream, or a camera through the pipeline) feeds one thread that owns the game
//! and the durable log. Every event and ruling is written to the log before it is announced; announcing only
//! wakes the readers (HTTP, SSE), so a slow browser never holds up the board.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, unbounded};
use serde::Serialize;

use super::game::{Decided, Game};
use super::metrics::Metrics;
use super::store::{Correction, Entry, Log, Origin, Record, now_ms};
use crate::report::ThumbnailRing;
use crate::rules::{Config, Event, EventKind, Ruling, RulingKind, read_events};

/// What a board is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Starting,
    Live,
    Reconnecting,
    NeedsAttention,
    Ended,
    Error,
}

/// Where a board's events come from.
#[derive(Clone, Debug)]
pub enum BoardSource {
    /// `events:PATH`: a tracker event stream replayed at its own timestamps.
    Events(PathBuf),
    /// Anything `capture` opens, with the board's calibration (`None`: found automatically).
    #[cfg(feature = "vision")]
    Pixels {
        source: String,
        calibration: Option<PathBuf>,
        models: PathBuf,
    },
}

impl BoardSource {
    /// `events:PATH`, or anything else for the camera pipeline (which needs the `vision` feature).
    pub fn parse(text: &str) -> Result<BoardSource, String> {
        match text.strip_prefix("events:") {
            Some(path) => Ok(BoardSource::Events(PathBuf::from(path))),
            #[cfg(feature = "vision")]
            None => Ok(BoardSource::Pixels {
                source: text.to_string(),
                calibration: None,
                models: "models".into(),
            }),
            #[cfg(not(feature = "vision"))]
            None => Err(format!(
                "`{text}`: camera and video boards need the `vision` feature; this build watches only `events:PATH` boards"
            )),
        }
    }
}

/// How the boards run.
#[derive(Clone, Debug)]
pub struct BoardOptions {
    pub rules: Config,
    /// Replay event streams and play files as fast as possible instead of at their own pace.
    pub as_fast_as_possible: bool,
    /// fsync every record (off only for benchmarks that want the rest of the path).
    pub sync: bool,
}

/// What the readers see of a board (guarded by a mutex held only briefly).
pub struct View {
    /// Every log record, in order (the SSE stream resumes from here).
    pub records: Vec<Record>,
    pub status: Status,
    pub reason: Option<String>,
    /// The arbiter's rulings with their log numbers.
    pub rulings: Vec<(u64, Ruling)>,
    /// The moves as the camera alone gave them (before any correction).
    pub camera_moves: Vec<String>,
    pub moves: Vec<String>,
    pub fen: String,
    pub acks: HashMap<u64, (u64, Option<String>)>,
    pub frames: u64,
    pub fps: f64,
    pub warnings: Vec<String>,
    /// Ruling number -> evidence frames (JPEG), for pixel boards.
    pub evidence: HashMap<u64, Vec<u8>>,
    /// Wall-clock ms when the source started playing (frame time 0), for latency.
    pub source_started_ms: Option<u64>,
    pub source: String,
}

/// A board as the server holds it.
pub struct Board {
    pub name: String,
    view: Mutex<View>,
    /// Bumped after each change; SSE clients wait on it.
    pub changed: tokio::sync::watch::Sender<u64>,
    tx: Sender<Input>,
    pub thumbs: Mutex<ThumbnailRing>,
    pub evidence_dir: PathBuf,
    metrics: Arc<Metrics>,
    /// A board another machine watches, mirrored by `arbiter hub` (read-only).
    remote: bool,
}

type Reply = tokio::sync::oneshot::Sender<Result<Vec<Record>, String>>;

/// What the board's thread receives.
pub enum Input {
    Event {
        event: Event,
        origin: Origin,
        /// Source time of the frame whose processing gave the event (see `Entry::Event`).
        seen_t: Option<f64>,
        reply: Option<Reply>,
    },
    Correction {
        correction: Correction,
        reply: Reply,
    },
    Ack {
        ruling: u64,
        by: Option<String>,
        reply: Reply,
    },
    End {
        t: f64,
        frame: Option<u64>,
    },
    Status {
        status: Status,
        reason: Option<String>,
    },
    Frame {
        frame: u64,
        t: f64,
    },
    Warning(String),
}

/// Kinds of ruling that are alerts for the arbiter (everything but a plain move).
pub fn is_alert(r: &Ruling) -> bool {
    !matches!(r.kind, RulingKind::Move { .. })
}

/// A ruling's kind as its JSON names it.
pub fn kind_name(r: &Ruling) -> String {
    serde_json::to_value(r)
        .ok()
        .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(str::to_string))
        .unwrap_or_default()
}

impl Board {
    /// Opens the board's log under `data/NAME`, rebuilds its game, and starts its thread and source.
    pub fn start(
        name: &str,
        source: BoardSource,
        data: &Path,
        opts: &BoardOptions,
        metrics: Arc<Metrics>,
    ) -> Arc<Board> {
        let (tx, rx) = unbounded();
        let dir = data.join(name);
        let board = Arc::new(Board::new(
            name,
            source_label(&source),
            tx,
            dir.join("evidence"),
            metrics,
            false,
        ));
        match Keeper::open(board.clone(), &dir, opts) {
            Ok((keeper, consumed, ended)) => {
                let b = board.clone();
                let _ = std::thread::Builder::new()
                    .name(format!("board-{name}"))
                    .spawn(move || keeper.run(rx));
                if ended {
                    b.set_status(Status::Ended, None);
                } else {
                    start_source(b, source, consumed, opts);
                }
            }
            Err(reason) => board.set_status(Status::Error, Some(reason)),
        }
        board
    }

    fn new(
        name: &str,
        source: String,
        tx: Sender<Input>,
        evidence_dir: PathBuf,
        metrics: Arc<Metrics>,
        remote: bool,
    ) -> Board {
        Board {
            name: name.to_string(),
            view: Mutex::new(View {
                records: Vec::new(),
                status: Status::Starting,
                reason: None,
                rulings: Vec::new(),
                camera_moves: Vec::new(),
                moves: Vec::new(),
                fen: String::new(),
                acks: HashMap::new(),
                frames: 0,
                fps: 0.0,
                warnings: Vec::new(),
                evidence: HashMap::new(),
                source_started_ms: None,
                source,
            }),
            changed: tokio::sync::watch::channel(0).0,
            tx,
            thumbs: Mutex::new(ThumbnailRing::new(crate::report::THUMBNAILS_KEPT)),
            evidence_dir,
            metrics,
            remote,
        }
    }

    /// A board mirrored from another machine's log records (`arbiter hub`).
    pub fn remote(name: &str, evidence_dir: PathBuf, metrics: Arc<Metrics>) -> Arc<Board> {
        let (tx, _) = unbounded();
        Arc::new(Board::new(name, "remote".into(), tx, evidence_dir, metrics, true))
    }

    /// Adds a record of a mirrored board; false when it was already there (records are deduplicated by number).
    pub fn apply_remote(&self, record: Record) -> bool {
        {
            let mut v = self.view();
            if v.records.last().is_some_and(|last| record.seq <= last.seq) {
                return false;
            }
            v.records.push(record);
            let folded = fold(&v.records);
            v.moves = folded
                .rulings
                .iter()
                .filter_map(|(_, r)| match &r.kind {
                    RulingKind::Move { san, .. } => Some(san.clone()),
                    _ => None,
                })
                .collect();
            if let Some(fen) = folded.rulings.iter().rev().find_map(|(_, r)| match &r.kind {
                RulingKind::Move { fen, .. } => Some(fen.clone()),
                _ => None,
            }) {
                v.fen = fen;
            }
            v.rulings = folded.rulings;
            v.camera_moves = folded.camera_moves;
            v.acks = folded.acks;
        }
        self.changed.send_modify(|n| *n += 1);
        true
    }

    /// Sets a mirrored board's status, as its `serve` published it.
    pub fn apply_remote_status(&self, s: &serde_json::Value) {
        {
            let mut v = self.view();
            v.status = serde_json::from_value(s["status"].clone()).unwrap_or(Status::Error);
            v.reason = s["reason"].as_str().map(str::to_string);
            v.fps = s["fps"].as_f64().unwrap_or(0.0);
            v.frames = s["frames"].as_u64().unwrap_or(0);
            v.source = s["source"].as_str().unwrap_or("remote").to_string();
            v.source_started_ms = s["source_started_ms"].as_u64();
            if v.fen.is_empty() {
                v.fen = s["fen"].as_str().unwrap_or("").to_string();
            }
        }
        self.changed.send_modify(|n| *n += 1);
    }

    pub fn view(&self) -> MutexGuard<'_, View> {
        self.view.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn send(&self, input: Input) -> bool {
        self.tx.send(input).is_ok()
    }

    fn set_status(&self, status: Status, reason: Option<String>) {
        {
            let mut v = self.view();
            v.status = status;
            v.reason = reason;
        }
        self.changed.send_modify(|n| *n += 1);
    }

    /// Sends an input and waits for the board thread's answer.
    pub async fn ask(&self, make: impl FnOnce(Reply) -> Input) -> Result<Vec<Record>, String> {
        if self.remote {
            return Err(format!(
                "the hub is read-only: enter claims and corrections on the `arbiter serve` that watches board {}",
                self.name
            ));
        }
        let (reply, rx) = tokio::sync::oneshot::channel();
        if !self.send(make(reply)) {
            return Err(format!("board {} is not running", self.name));
        }
        rx.await.unwrap_or_else(|_| Err(format!("board {} stopped", self.name)))
    }
}

fn source_label(s: &BoardSource) -> String {
    match s {
        BoardSource::Events(p) => format!("events:{}", p.display()),
        #[cfg(feature = "vision")]
        BoardSource::Pixels { source, .. } => source.clone(),
    }
}

/// What a log says of the arbiter's game.
pub struct Folded {
    /// The arbiter's rulings with their numbers (a correction supersedes those from its `cut`).
    pub rulings: Vec<(u64, Ruling)>,
    /// The moves as the camera alone gave them (rulings of revision 0).
    pub camera_moves: Vec<String>,
    pub acks: HashMap<u64, (u64, Option<String>)>,
}

pub fn fold(records: &[Record]) -> Folded {
    let mut out = Folded {
        rulings: Vec::new(),
        camera_moves: Vec::new(),
        acks: HashMap::new(),
    };
    for r in records {
        match &r.entry {
            Entry::Ruling { ruling, rev, .. } => {
                if let (0, RulingKind::Move { san, .. }) = (rev, &ruling.kind) {
                    out.camera_moves.push(san.clone());
                }
                out.rulings.push((r.seq, ruling.clone()));
            }
            Entry::Correction { cut, .. } => out.rulings.retain(|(s, _)| s < cut),
            Entry::Ack { ruling, by } => {
                out.acks.insert(*ruling, (r.at_ms, by.clone()));
            }
            _ => {}
        }
    }
    out
}

/// The board's thread: owns the game and the log.
struct Keeper {
    board: Arc<Board>,
    game: Game,
    log: Log,
    /// Log number of each of `game.rulings`.
    seqs: Vec<u64>,
    camera_moves: Vec<String>,
    needs_attention: bool,
    last_frame_at: Option<(Instant, u64)>,
}

impl Keeper {
    /// Opens the log and rebuilds; returns the keeper, how many source events the log already holds, and whether
    /// the source had ended.
    fn open(board: Arc<Board>, dir: &Path, opts: &BoardOptions) -> Result<(Keeper, usize, bool), String> {
        let (mut log, records) = Log::open(dir).map_err(|e| e.to_string())?;
        log.set_sync(opts.sync);
        let game = Game::replay(opts.rules.clone(), &records).map_err(|e| format!("cannot rebuild the game: {e}"))?;
        let Folded {
            rulings: logged,
            camera_moves,
            acks,
        } = fold(&records);
        let consumed = records
            .iter()
            .filter(|r| {
                matches!(
                    r.entry,
                    Entry::Event {
                        origin: Origin::Source,
                        ..
                    }
                )
            })
            .count();
        let ended = records.iter().any(|r| matches!(r.entry, Entry::End { .. }));
        let mut keeper = Keeper {
            board: board.clone(),
            seqs: logged.iter().map(|(s, _)| *s).collect(),
            game,
            log,
            camera_moves,
            needs_attention: false,
            last_frame_at: None,
        };
        let mut warnings = Vec::new();
        let agree = logged.len() <= keeper.game.rulings.len()
            && logged
                .iter()
                .zip(&keeper.game.rulings)
                .all(|((_, a), d)| *a == d.ruling);
        if !agree {
            warnings.push("the rulings in the log differ from the game its events give; the log's are kept".into());
        }
        let mut all = records;
        if agree {
            // The process stopped after writing an event but before its rulings: write them now.
            let missing: Vec<Decided> = keeper.game.rulings[logged.len()..].to_vec();
            for d in missing {
                let rec = keeper.write(Entry::Ruling {
                    cause: d.cause,
                    rev: keeper.game.rev,
                    ruling: d.ruling.clone(),
                })?;
                keeper.seqs.push(rec.seq);
                all.push(rec);
            }
        }
        {
            let mut v = board.view();
            v.records = all;
            v.acks = acks;
            v.warnings = warnings;
        }
        keeper.needs_attention = matches!(
            keeper.game.rulings.last().map(|d| &d.ruling.kind),
            Some(RulingKind::UnexplainedBoard { .. })
        );
        keeper.refresh(&[]);
        Ok((keeper, consumed, ended))
    }

    fn write(&mut self, entry: Entry) -> Result<Record, String> {
        self.log.append(entry).map_err(|e| e.to_string())
    }

    fn run(mut self, rx: Receiver<Input>) {
        for input in rx.iter() {
            let result = self.handle(input);
            if let Err(e) = result {
                self.board.set_status(Status::Error, Some(e));
            }
        }
    }

    fn handle(&mut self, input: Input) -> Result<(), String> {
        match input {
            Input::Event {
                event,
                origin,
                seen_t,
                reply,
            } => {
                let out = self.event(event, origin, seen_t);
                let failed = out.as_ref().err().cloned();
                if let Some(reply) = reply {
                    let _ = reply.send(out);
                }
                if let Some(e) = failed {
                    return Err(e);
                }
            }
            Input::Correction { correction, reply } => {
                let out = self.correct(correction);
                let _ = reply.send(out);
            }
            Input::Ack { ruling, by, reply } => {
                let out = self.ack(ruling, by);
                let _ = reply.send(out);
            }
            Input::End { t, frame } => {
                let rec = self.write(Entry::End { t, frame })?;
                let rulings = self.game.finish(rec.seq, t, frame);
                let mut new = vec![rec];
                new.extend(self.write_rulings(rulings, new[0].seq)?);
                self.refresh(&new);
                self.board.set_status(Status::Ended, None);
            }
            Input::Status { status, reason } => {
                let status = if status == Status::Live && self.needs_attention {
                    Status::NeedsAttention
                } else {
                    status
                };
                self.board.set_status(status, reason);
            }
            Input::Frame { frame, t: _ } => {
                let now = Instant::now();
                self.board.metrics.frames_in.inc(&self.board.name);
                let mut v = self.board.view();
                if let Some((at, f)) = self.last_frame_at {
                    let dt = now.duration_since(at).as_secs_f64();
                    if dt > 0.0 && frame > f {
                        let inst = (frame - f) as f64 / dt;
                        v.fps = if v.fps == 0.0 { inst } else { 0.9 * v.fps + 0.1 * inst };
                    }
                    if frame > f + 1 {
                        self.board.metrics.frames_dropped.add(&self.board.name, frame - f - 1);
                    }
                }
                v.frames = frame + 1;
                self.last_frame_at = Some((now, frame));
                if v.status == Status::Reconnecting || v.status == Status::Starting {
                    v.status = if self.needs_attention {
                        Status::NeedsAttention
                    } else {
                        Status::Live
                    };
                    v.reason = None;
                }
            }
            Input::Warning(w) => {
                if w.contains("reconnecting") {
                    self.board.metrics.reconnects.inc(&self.board.name);
                    self.board.set_status(Status::Reconnecting, Some(w.clone()));
                }
                let mut v = self.board.view();
                v.warnings.push(w);
                let excess = v.warnings.len().saturating_sub(50);
                v.warnings.drain(..excess);
            }
        }
        Ok(())
    }

    fn event(&mut self, event: Event, origin: Origin, seen_t: Option<f64>) -> Result<Vec<Record>, String> {
        let rec = self.write(Entry::Event {
            origin,
            event: event.clone(),
            seen_t,
        })?;
        let rulings = self.game.push(rec.seq, &event);
        if matches!(event.kind, EventKind::Board(_)) {
            // The board matches the game again (or a move explains it) unless this very board is unexplained.
            self.needs_attention = rulings
                .iter()
                .any(|r| matches!(r.kind, RulingKind::UnexplainedBoard { .. }));
        }
        let seq = rec.seq;
        let mut new = vec![rec];
        new.extend(self.write_rulings(rulings, seq)?);
        self.refresh(&new);
        Ok(new)
    }

    fn write_rulings(&mut self, rulings: Vec<Ruling>, cause: u64) -> Result<Vec<Record>, String> {
        let mut out = Vec::new();
        for r in rulings {
            if let (0, RulingKind::Move { san, .. }) = (self.game.rev, &r.kind) {
                self.camera_moves.push(san.clone());
            }
            self.board.metrics.rulings.inc(&kind_name(&r));
            let rec = self.write(Entry::Ruling {
                cause,
                rev: self.game.rev,
                ruling: r,
            })?;
            self.keep_evidence(&rec);
            self.seqs.push(rec.seq);
            out.push(rec);
        }
        Ok(out)
    }

    /// Saves the frames that prove a ruling (pixel boards) before it is announced.
    fn keep_evidence(&mut self, rec: &Record) {
        let Entry::Ruling { ruling, .. } = &rec.entry else {
            return;
        };
        if !is_alert(ruling) {
            return;
        }
        let Some(frame) = ruling.frame else { return };
        let frames = self.evidence_frames(ruling, frame);
        let jpegs: Vec<Vec<u8>> = {
            let ring = self.board.thumbs.lock().unwrap_or_else(|p| p.into_inner());
            // Each frame, or the nearest earlier one kept (still frames are not all kept).
            frames
                .iter()
                .filter_map(|&f| {
                    (0..30u64)
                        .filter_map(|back| f.checked_sub(back))
                        .find_map(|f| ring.get(f).map(<[u8]>::to_vec))
                })
                .collect()
        };
        let Some(jpeg) = strip(&jpegs) else { return };
        let path = self.board.evidence_dir.join(format!("{}.jpg", rec.seq));
        if std::fs::create_dir_all(&self.board.evidence_dir).is_ok() {
            let _ = std::fs::write(&path, &jpeg);
        }
        self.board.view().evidence.insert(rec.seq, jpeg);
    }

    /// The frames that prove a ruling: the last touch, lift or placing seen on each of its squares, then the
    /// ruling's own frame (at most four, in order).
    fn evidence_frames(&self, ruling: &Ruling, frame: u64) -> Vec<u64> {
        let v = self.board.view();
        let mut frames: Vec<u64> = ruling
            .squares
            .iter()
            .filter_map(|sq| {
                v.records.iter().rev().find_map(|r| match &r.entry {
                    Entry::Event { event, .. } if event.frame.is_some_and(|f| f <= frame) => match event.kind {
                        EventKind::Touch { square, .. }
                        | EventKind::PossibleTouch { square, .. }
                        | EventKind::Lift { square, .. }
                        | EventKind::Place { square, .. }
                            if square.to_string() == *sq =>
                        {
                            event.frame
                        }
                        _ => None,
                    },
                    _ => None,
                })
            })
            .collect();
        frames.push(frame);
        frames.sort_unstable();
        frames.dedup();
        let excess = frames.len().saturating_sub(4);
        frames.drain(..excess);
        frames
    }

    fn correct(&mut self, correction: Correction) -> Result<Vec<Record>, String> {
        // Try it on a copy first: a correction that does not apply changes nothing and writes nothing.
        let cut_seq = self.log.next_seq();
        let mut trial_seqs = self.seqs.clone();
        let cut_index = self.game.correct(cut_seq, &correction).map_err(|e| e.to_string())?;
        let cut = trial_seqs.get(cut_index).copied().unwrap_or(cut_seq);
        trial_seqs.truncate(cut_index);
        self.seqs = trial_seqs;
        let rec = self.write(Entry::Correction { correction, cut })?;
        let mut new = vec![rec];
        let recomputed: Vec<Decided> = self.game.rulings[cut_index..].to_vec();
        for d in recomputed {
            let r = self.write(Entry::Ruling {
                cause: d.cause,
                rev: self.game.rev,
                ruling: d.ruling,
            })?;
            self.seqs.push(r.seq);
            new.push(r);
        }
        self.needs_attention = false;
        self.refresh(&new);
        if self.board.view().status == Status::NeedsAttention {
            self.board.set_status(Status::Live, None);
        }
        Ok(new)
    }

    fn ack(&mut self, ruling: u64, by: Option<String>) -> Result<Vec<Record>, String> {
        if !self.seqs.contains(&ruling) {
            return Err(format!("no ruling {ruling} on board {}", self.board.name));
        }
        let rec = self.write(Entry::Ack { ruling, by: by.clone() })?;
        self.board.view().acks.insert(ruling, (rec.at_ms, by));
        self.refresh(std::slice::from_ref(&rec));
        Ok(vec![rec])
    }

    /// Source time at which a ruling's evidence was complete: when the tracker gave the event that caused it.
    fn evidence_t(&self, cause: u64, ruling: &Ruling) -> f64 {
        let v = self.board.view();
        let at = v.records.partition_point(|r| r.seq < cause);
        match v.records.get(at).map(|r| &r.entry) {
            Some(Entry::Event { seen_t: Some(t), .. }) => *t,
            Some(Entry::Event { event, .. }) => event.t,
            _ => ruling.t,
        }
    }

    /// Publishes the new records and the game's state to readers, then wakes them.
    fn refresh(&mut self, new: &[Record]) {
        let started = self.board.view().source_started_ms;
        {
            let mut v = self.board.view();
            v.records.extend_from_slice(new);
            v.rulings = self
                .seqs
                .iter()
                .copied()
                .zip(self.game.rulings.iter().map(|d| d.ruling.clone()))
                .collect();
            v.moves = self.game.moves();
            v.camera_moves = self.camera_moves.clone();
            v.fen = self.game.fen();
            if self.needs_attention && matches!(v.status, Status::Live | Status::Starting) {
                v.status = Status::NeedsAttention;
            } else if !self.needs_attention && v.status == Status::NeedsAttention {
                v.status = Status::Live;
            }
        }
        if let Some(start) = started {
            let now = now_ms();
            for r in new {
                if let Entry::Ruling { ruling, cause, .. } = &r.entry {
                    let due = start as f64 + self.evidence_t(*cause, ruling) * 1000.0;
                    self.board.metrics.latency.observe((now as f64 - due).max(0.0) / 1000.0);
                }
            }
        }
        self.board.changed.send_modify(|n| *n += 1);
    }
}

/// The evidence frames side by side in one JPEG (one frame as it is).
fn strip(jpegs: &[Vec<u8>]) -> Option<Vec<u8>> {
    if jpegs.len() <= 1 {
        return jpegs.first().cloned();
    }
    let images: Vec<image::RgbImage> = jpegs
        .iter()
        .filter_map(|j| image::load_from_memory(j).ok().map(|i| i.to_rgb8()))
        .collect();
    let height = images.iter().map(|i| i.height()).max()?;
    let width = images.iter().map(|i| i.width() + 4).sum::<u32>() - 4;
    let mut out = image::RgbImage::from_pixel(width, height, image::Rgb([255, 255, 255]));
    let mut x = 0;
    for i in &images {
        image::imageops::replace(&mut out, i, x as i64, 0);
        x += i.width() + 4;
    }
    let mut buf = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut buf, 80)
        .encode_image(&out)
        .ok()?;
    Some(buf)
}

/// Starts the thread that feeds the board from its source, skipping the `consumed` source events the log holds.
fn start_source(board: Arc<Board>, source: BoardSource, consumed: usize, opts: &BoardOptions) {
    let opts = opts.clone();
    let name = format!("source-{}", board.name);
    let b = board.clone();
    let spawned = std::thread::Builder::new().name(name).spawn(move || match source {
        BoardSource::Events(path) => replay(&b, &path, consumed, opts.as_fast_as_possible),
        #[cfg(feature = "vision")]
        BoardSource::Pixels {
            source,
            calibration,
            models,
        } => super::pixels::run(&b, &source, calibration.as_deref(), &models, consumed, &opts),
    });
    if let Err(e) = spawned {
        board.set_status(Status::Error, Some(format!("cannot start the source thread: {e}")));
    }
}

/// Plays an event stream at its own timestamps (from the first event not yet in the log).
fn replay(board: &Arc<Board>, path: &Path, consumed: usize, fast: bool) {
    let events = match std::fs::File::open(path) {
        Ok(f) => match read_events(std::io::BufReader::new(f)) {
            Ok(e) => e,
            Err(e) => {
                board.set_status(Status::Error, Some(format!("{}: {e}", path.display())));
                return;
            }
        },
        Err(e) => {
            board.set_status(Status::Error, Some(format!("cannot read {}: {e}", path.display())));
            return;
        }
    };
    let rest = events.get(consumed..).unwrap_or_default();
    // The stream's clock starts at 0; after a restart it resumes from the last event already logged.
    let t0 = consumed
        .checked_sub(1)
        .and_then(|i| events.get(i))
        .map(|e| e.t)
        .unwrap_or(0.0);
    let started = Instant::now();
    board.view().source_started_ms = Some(now_ms().saturating_sub((t0 * 1000.0) as u64));
    board.send(Input::Status {
        status: Status::Live,
        reason: None,
    });
    for e in rest {
        if !fast {
            let due = Duration::from_secs_f64((e.t - t0).max(0.0));
            if let Some(wait) = due.checked_sub(started.elapsed()) {
                std::thread::sleep(wait);
            }
        }
        if !board.send(Input::Event {
            event: e.clone(),
            origin: Origin::Source,
            seen_t: None,
            reply: None,
        }) {
            return;
        }
    }
    let last = events.last();
    board.send(Input::End {
        t: last.map(|e| e.t).unwrap_or(0.0),
        frame: last.and_then(|e| e.frame),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jpeg(w: u32, h: u32, grey: u8) -> Vec<u8> {
        let img = image::RgbImage::from_pixel(w, h, image::Rgb([grey; 3]));
        let mut buf = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut buf, 80)
            .encode_image(&img)
            .unwrap();
        buf
    }

    #[test]
    fn evidence_frames_are_put_side_by_side() {
        let one = jpeg(40, 30, 10);
        assert_eq!(strip(std::slice::from_ref(&one)), Some(one.clone()));
        let both = strip(&[one, jpeg(40, 30, 200)]).unwrap();
        let img = image::load_from_memory(&both).unwrap();
        assert_eq!((img.width(), img.height()), (84, 30));
        assert_eq!(strip(&[]), None);
    }
}
