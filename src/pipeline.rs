//! The camera pipeline: capture -> rectify -> hands + pieces -> tracker -> ruling
//! engine, as stages on threads joined by bounded channels, so that decoding,
//! inference and logic overlap.
//!
//! ```text
//!  capture thread ──frames──> vision thread ──observations──> caller's thread
//!  (decode)                   (hands, pieces, thumbnails)      (tracker, engine, sink)
//!                               ^                                   │
//!                               └──── confirmed placements ─────────┘
//! ```
//!
//! The vision thread skips the models on frames where nothing moves and no hand was
//! in view (a still board cannot hide a touch); it never skips a frame while a hand
//! is over the board. Confirmed placements flow back so the piece reader adapts to
//! the board only from positions the engine has accepted.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, TryRecvError, bounded, unbounded};
use opencv::core::{Mat, Size, Vector};
use opencv::imgcodecs;
use opencv::imgproc;
use opencv::prelude::*;
use shakmaty::{Board, Position};

use crate::calibration::Calibration;
use crate::calibration::rectify::Rectifier;
use crate::capture::{self, CaptureMsg, CaptureOptions, EndReason, Source};
use crate::geometry::RectifiedView;
use crate::observation::FrameObservation;
use crate::rules::{BoardView, Engine, Event, EventKind, Ruling};
use crate::tracker::{Tracker, TrackerConfig};
use crate::vision::clock::ClockWatcher;
use crate::vision::hands::{HandDetector, HandOptions, HandsError};
use crate::vision::pieces::adapt::ConfirmedPlacement;
use crate::vision::pieces::{PieceReader, PieceReading, PiecesError};

/// Why the pipeline stopped.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Capture(#[from] capture::CaptureError),
    #[error("hand detector: {0}")]
    Hands(#[from] HandsError),
    #[error("piece reader: {0}")]
    Pieces(#[from] PiecesError),
    #[error("ruling engine: {0}")]
    Rules(#[from] crate::rules::RulesError),
    #[error("OpenCV: {0}")]
    OpenCv(#[from] opencv::Error),
    #[error("the calibration is for {cal_w}x{cal_h} pictures but the source gives {w}x{h}: calibrate this source")]
    SizeMismatch { cal_w: u32, cal_h: u32, w: u32, h: u32 },
    #[error("cannot write observations to {0}")]
    Dump(PathBuf),
    #[error("the vision stage stopped unexpectedly")]
    VisionStopped,
}

/// What the pipeline runs.
#[derive(Debug, Clone)]
pub struct PipelineOptions {
    pub rules: crate::rules::Config,
    pub tracker: TrackerConfig,
    /// The folder holding `hands/` and `pieces/` models.
    pub models_dir: PathBuf,
    /// Skip the models on still frames with no hand in view.
    pub skip_still: bool,
    /// Width of the evidence thumbnails kept per frame (0: none).
    pub thumbnail_width: i32,
    /// Pace file sources at their frame rate (live replay) instead of as fast as possible.
    pub realtime: bool,
    /// Frames in flight between stages; a live source drops frames beyond this.
    pub channel_capacity: usize,
    /// Write every frame's observations here (JSON Lines), to replay the tracker on
    /// plain data (see `tests/tracker_real.rs`).
    pub observations_out: Option<PathBuf>,
}

impl Default for PipelineOptions {
    fn default() -> Self {
        PipelineOptions {
            rules: crate::rules::Config::default(),
            tracker: TrackerConfig::default(),
            models_dir: PathBuf::from("models"),
            skip_still: true,
            thumbnail_width: 192,
            realtime: false,
            channel_capacity: 4,
            observations_out: None,
        }
    }
}

/// Seconds spent per stage over a run (summed over frames).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct StageTimes {
    pub rectify: f64,
    pub hands: f64,
    pub pieces: f64,
    pub thumbnails: f64,
    pub tracker_and_rules: f64,
    /// Frames on which the models ran, and frames skipped as still.
    pub frames_modelled: u64,
    pub frames_skipped: u64,
    /// Live sources only: frames dropped because the vision stage was behind (a newer
    /// frame was already waiting). Events are never dropped.
    pub frames_dropped: u64,
}

/// What the pipeline reports to its caller, in order.
pub trait Sink {
    fn event(&mut self, event: &Event);
    fn ruling(&mut self, ruling: &Ruling);
    /// A frame finished (for progress), with its thumbnail (JPEG) when kept.
    fn frame(&mut self, _frame: u64, _t: f64, _thumbnail: Option<&[u8]>) {}
    fn warning(&mut self, _message: &str) {}
}

/// Everything a run produced besides what went to the sink.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunSummary {
    pub frames: u64,
    pub fps: Option<f64>,
    pub wall_s: f64,
    pub times: StageTimes,
    pub end: String,
    pub adaptation: Vec<String>,
}

struct Observed {
    obs: FrameObservation,
    thumbnail: Option<Vec<u8>>,
}

enum VisionMsg {
    Frame(Box<Observed>),
    Warning(String),
    Times(StageTimes, Vec<String>),
    End(EndReason),
    Failed(PipelineError),
}

/// A placement the engine accepted, seen in a settled frame.
struct Confirmed {
    frame: u64,
    board: Board,
}

/// Runs the whole pipeline on `source` with `calibration` until the source ends,
/// sending events and rulings to `sink`. Each frame is reported to the sink too, for progress and evidence.
pub fn run(
    source: Source,
    calibration: &Calibration,
    opts: &PipelineOptions,
    sink: &mut dyn Sink,
) -> Result<RunSummary, PipelineError> {
    let started = Instant::now();
    let capture = capture::spawn(
        source,
        CaptureOptions {
            channel_capacity: opts.channel_capacity,
            realtime: opts.realtime,
            ..CaptureOptions::default()
        },
    )?;
    let info = capture.info();
    if (info.width, info.height) != (calibration.width, calibration.height) {
        return Err(PipelineError::SizeMismatch {
            cal_w: calibration.width,
            cal_h: calibration.height,
            w: info.width,
            h: info.height,
        });
    }
    // Models load on this thread so that a missing model is an error before any work.
    let hands = HandDetector::new(&opts.models_dir.join("hands"), HandOptions::default())?;
    let pieces = PieceReader::new(&opts.models_dir.join("pieces/pieces.onnx"))?;
    let rectifier = Rectifier::new(calibration, RectifiedView::STANDARD)?;
    let clock = ClockWatcher::new(
        &calibration.regions,
        calibration.width as i32,
        calibration.height as i32,
    )?;

    let (obs_tx, obs_rx) = bounded::<VisionMsg>(opts.channel_capacity.max(1));
    let (confirm_tx, confirm_rx) = unbounded::<Confirmed>();
    let cal = calibration.clone();
    let vopts = opts.clone();
    let frames_rx = capture.rx.clone();
    let vision = std::thread::Builder::new()
        .name("vision".into())
        .spawn(move || {
            let mut stage = VisionStage::new(hands, pieces, rectifier, cal, clock, vopts);
            stage.run(frames_rx, obs_tx, confirm_rx);
        })
        .map_err(|_| PipelineError::VisionStopped)?;

    let mut engine = Engine::new(opts.rules.clone())?;
    let mut tracker = Tracker::new(opts.tracker.clone());
    let mut times = StageTimes::default();
    let mut adaptation = Vec::new();
    let mut frames = 0u64;
    let mut last_t = 0.0;
    let mut end = EndReason::EndOfStream;
    let mut failure = None;
    let mut dump = match &opts.observations_out {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|_| PipelineError::Dump(p.clone()))?,
        )),
        None => None,
    };
    for msg in obs_rx.iter() {
        match msg {
            VisionMsg::Frame(o) => {
                if let Some(d) = dump.as_mut() {
                    use std::io::Write;
                    let line = serde_json::to_string(&o.obs).unwrap_or_default();
                    let _ = writeln!(d, "{line}");
                }
                let t0 = Instant::now();
                let events = tracker.push(&o.obs, engine.position());
                for e in &events {
                    sink.event(e);
                    for r in engine.push(e) {
                        sink.ruling(&r);
                    }
                    // Adapt the piece reader on settled boards the engine accepts.
                    if let EventKind::Board(BoardView::Placement(b)) = &e.kind {
                        if engine.position().board() == b {
                            let frame = e.frame.unwrap_or(o.obs.frame);
                            let _ = confirm_tx.send(Confirmed {
                                frame,
                                board: b.clone(),
                            });
                        }
                    }
                }
                times.tracker_and_rules += t0.elapsed().as_secs_f64();
                frames = o.obs.frame + 1;
                last_t = o.obs.t;
                sink.frame(o.obs.frame, o.obs.t, o.thumbnail.as_deref());
            }
            VisionMsg::Warning(w) => sink.warning(&w),
            VisionMsg::Times(t, a) => {
                let tr = times.tracker_and_rules;
                times = t;
                times.tracker_and_rules = tr;
                adaptation = a;
            }
            VisionMsg::End(reason) => end = reason,
            VisionMsg::Failed(e) => failure = Some(e),
        }
    }
    let _ = vision.join();
    drop(capture);
    if let Some(e) = failure {
        return Err(e);
    }
    for e in tracker.finish(engine.position()) {
        sink.event(&e);
        for r in engine.push(&e) {
            sink.ruling(&r);
        }
    }
    for r in engine.finish(last_t, Some(frames.saturating_sub(1))) {
        sink.ruling(&r);
    }
    Ok(RunSummary {
        frames,
        fps: info.fps,
        wall_s: started.elapsed().as_secs_f64(),
        times,
        end: format!("{end:?}"),
        adaptation,
    })
}

/// The vision thread's state.
struct VisionStage {
    hands: HandDetector,
    pieces: PieceReader,
    rectifier: Rectifier,
    cal: Calibration,
    opts: PipelineOptions,
    times: StageTimes,
    /// Small grey picture of the last modelled frame, to see whether anything moved.
    last_small: Option<Mat>,
    last_had_hands: bool,
    /// The last readings, by frame, for the adaptation.
    readings: VecDeque<(u64, PieceReading)>,
    adaptation: Vec<String>,
    /// The game's starting placement, learned from at the first settled frame.
    start: Option<Board>,
    /// Consecutive frames without a hand.
    handless: u32,
    /// The last thumbnail made: a skipped (still) frame looks the same.
    last_thumbnail: Option<Vec<u8>>,
    /// The calibrated clock buttons, watched on every frame.
    clock: ClockWatcher,
}

/// Frames without a hand before the board counts as settled for the adaptation at
/// game start (0.15 s at 20 fps: hands come and go faster than that only at the edge).
const SETTLED_FRAMES: u32 = 3;

/// Readings kept for the adaptation: about 5 seconds at 25 fps.
const KEEP_READINGS: usize = 128;

/// A pixel changed by more than this many grey levels (of 255) has changed for real:
/// above sensor noise and compression (a few levels), below any hand or piece.
const MOTION_LEVEL: f64 = 25.0;
/// The share of the small picture that must change for the frame to count as moving:
/// 0.2% is a quarter of one square on a board that fills the frame.
const MOTION_SHARE: f64 = 0.002;

impl VisionStage {
    fn new(
        hands: HandDetector,
        pieces: PieceReader,
        rectifier: Rectifier,
        cal: Calibration,
        clock: ClockWatcher,
        opts: PipelineOptions,
    ) -> Self {
        VisionStage {
            hands,
            pieces,
            rectifier,
            cal,
            times: StageTimes::default(),
            last_small: None,
            last_had_hands: true,
            readings: VecDeque::new(),
            adaptation: Vec::new(),
            start: start_board(&opts.rules),
            handless: 0,
            last_thumbnail: None,
            clock,
            opts,
        }
    }

    fn run(&mut self, frames: Receiver<CaptureMsg>, out: Sender<VisionMsg>, confirmed: Receiver<Confirmed>) {
        for msg in frames.iter() {
            let sent = match msg {
                // Under overload a live source drops its stale frames here; the
                // tracker copes with a lower frame rate (tested at half the rate).
                CaptureMsg::Frame(_) if self.opts.realtime && !frames.is_empty() => {
                    self.times.frames_dropped += 1;
                    Ok(())
                }
                CaptureMsg::Frame(frame) => {
                    self.take_confirmations(&confirmed);
                    match self.observe(frame.index, frame.t, &frame.image) {
                        Ok(o) => out.send(VisionMsg::Frame(Box::new(o))),
                        Err(e) => {
                            let _ = out.send(VisionMsg::Failed(e));
                            break;
                        }
                    }
                }
                CaptureMsg::Gap { from_t, to_t, reason } => out.send(VisionMsg::Warning(format!(
                    "no frames from {from_t:.2}s to {to_t:.2}s: {reason}"
                ))),
                CaptureMsg::Warning(w) => out.send(VisionMsg::Warning(w)),
                CaptureMsg::Reconnecting { attempt, wait } => out.send(VisionMsg::Warning(format!(
                    "source dropped; reconnecting (attempt {attempt}) in {:.1}s",
                    wait.as_secs_f64()
                ))),
                CaptureMsg::End { reason } => {
                    let _ = out.send(VisionMsg::Times(self.times.clone(), self.adaptation.clone()));
                    let _ = out.send(VisionMsg::End(reason));
                    break;
                }
            };
            if sent.is_err() {
                break;
            }
        }
    }

    fn take_confirmations(&mut self, confirmed: &Receiver<Confirmed>) {
        loop {
            match confirmed.try_recv() {
                Ok(c) => {
                    let Some((_, reading)) = self.readings.iter().rev().find(|(f, _)| *f <= c.frame) else {
                        continue;
                    };
                    let placement = ConfirmedPlacement::engine_confirmed(c.board);
                    let report = self.pieces.adapt(reading, &placement);
                    self.adaptation.push(describe(c.frame, &report));
                }
                Err(TryRecvError::Empty) | Err(TryRecvError::Disconnected) => return,
            }
        }
    }

    fn moved(&mut self, image: &Mat) -> Result<bool, PipelineError> {
        let mut grey = Mat::default();
        imgproc::cvt_color_def(image, &mut grey, imgproc::COLOR_BGR2GRAY)?;
        let mut small = Mat::default();
        imgproc::resize(&grey, &mut small, Size::new(160, 120), 0.0, 0.0, imgproc::INTER_AREA)?;
        let moved = match &self.last_small {
            None => true,
            Some(last) => {
                let mut diff = Mat::default();
                opencv::core::absdiff(&small, last, &mut diff)?;
                let mut mask = Mat::default();
                imgproc::threshold(&diff, &mut mask, MOTION_LEVEL, 255.0, imgproc::THRESH_BINARY)?;
                let changed = opencv::core::count_non_zero(&mask)? as f64;
                changed / (160.0 * 120.0) > MOTION_SHARE
            }
        };
        if moved {
            self.last_small = Some(small);
        }
        Ok(moved)
    }

    fn observe(&mut self, index: u64, t: f64, image: &Mat) -> Result<Observed, PipelineError> {
        let moved = self.moved(image)?;
        let model = !self.opts.skip_still || moved || self.last_had_hands;
        let mut obs = FrameObservation {
            frame: index,
            t,
            hands: Vec::new(),
            squares: None,
            clock_presses: self.clock.update(image, t)?,
        };
        if model {
            self.times.frames_modelled += 1;
            let t0 = Instant::now();
            let tracks = self.hands.detect(image, t, index, Some(&self.cal))?;
            self.times.hands += t0.elapsed().as_secs_f64();
            let h = self.cal.image_to_board();
            obs.hands = tracks.iter().map(|tr| tr.to_observation(&h)).collect();
            self.last_had_hands = !obs.hands.is_empty();
            let t1 = Instant::now();
            let rectified = self.rectifier.rectify(image)?;
            self.times.rectify += t1.elapsed().as_secs_f64();
            let t2 = Instant::now();
            let reading = self.pieces.read(&rectified)?;
            self.times.pieces += t2.elapsed().as_secs_f64();
            obs.squares = Some(reading.probs.clone());
            self.readings.push_back((index, reading));
            if self.readings.len() > KEEP_READINGS {
                self.readings.pop_front();
            }
        } else {
            self.times.frames_skipped += 1;
        }
        self.handless = if obs.hands.is_empty() { self.handless + 1 } else { 0 };
        if self.handless >= SETTLED_FRAMES {
            if let (Some(board), Some((frame, reading))) = (self.start.take(), self.readings.back()) {
                // The game starts from a known position: the first settled frame
                // labels all 64 squares of this board under this light.
                let report = self.pieces.adapt(reading, &ConfirmedPlacement::game_start(board));
                self.adaptation.push(describe(*frame, &report));
            }
        }
        let t3 = Instant::now();
        let thumbnail = match (&self.last_thumbnail, model) {
            _ if self.opts.thumbnail_width <= 0 => None,
            (Some(last), false) => Some(last.clone()),
            _ => Some(thumbnail(image, self.opts.thumbnail_width)?),
        };
        self.last_thumbnail.clone_from(&thumbnail);
        self.times.thumbnails += t3.elapsed().as_secs_f64();
        Ok(Observed { obs, thumbnail })
    }
}

fn describe(frame: u64, r: &crate::vision::pieces::AdaptReport) -> String {
    let state = |active: bool| if active { "adapted" } else { "plain network" };
    format!(
        "frame {frame}: occupancy {} ({}), types {} ({})",
        state(r.occupancy.active),
        r.occupancy.note,
        state(r.types.active),
        r.types.note
    )
}

/// The placement the game starts from.
fn start_board(rules: &crate::rules::Config) -> Option<Board> {
    match &rules.start {
        None => Some(Board::default()),
        Some(fen) => fen
            .parse::<shakmaty::fen::Fen>()
            .ok()
            .map(|f| f.as_setup().board.clone()),
    }
}

/// A small JPEG of a frame, for evidence strips.
pub fn thumbnail(image: &Mat, width: i32) -> Result<Vec<u8>, opencv::Error> {
    let scale = width as f64 / image.cols().max(1) as f64;
    let mut small = Mat::default();
    imgproc::resize(image, &mut small, Size::new(0, 0), scale, scale, imgproc::INTER_AREA)?;
    let mut buf = Vector::<u8>::new();
    let params = Vector::<i32>::from_slice(&[imgcodecs::IMWRITE_JPEG_QUALITY, 80]);
    imgcodecs::imencode(".jpg", &small, &mut buf, &params)?;
    Ok(buf.to_vec())
}
