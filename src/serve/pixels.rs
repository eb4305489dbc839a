//! A camera or video board: the same pipeline as `arbiter review` (capture -> rectify -> hands and pieces ->
//! tracker) on its own threads, its events fed to the board's thread, which rules on them with the board's own
//! engine (so that claims and corrections entered through the API are part of the game).

use std::path::Path;
use std::sync::Arc;

use super::board::{Board, BoardOptions, Input, Status};
use super::store::{Entry, Origin, now_ms};
use crate::calibration::detect::{DetectOptions, calibrate_source};
use crate::calibration::{Calibration, WhiteSide};
use crate::capture::Source;
use crate::pipeline::{self, PipelineOptions, Sink};
use crate::rules::{Event, Ruling};

struct BoardSink {
    board: Arc<Board>,
    /// Events up to this frame are already in the log (a file played again after a restart).
    skip_through: Option<u64>,
    /// The events of the frame being finished: sent once its thumbnail is kept, so that the evidence of a
    /// ruling they cause is that very frame.
    pending: Vec<Event>,
}

impl BoardSink {
    /// Sends the pending events; `seen_t` is the time of the frame whose processing gave them.
    fn flush(&mut self, seen_t: Option<f64>) {
        for event in self.pending.drain(..) {
            self.board.send(Input::Event {
                event,
                origin: Origin::Source,
                seen_t,
                reply: None,
            });
        }
    }
}

impl Sink for BoardSink {
    fn event(&mut self, event: &Event) {
        if let (Some(skip), Some(frame)) = (self.skip_through, event.frame) {
            if frame <= skip {
                return;
            }
        }
        self.pending.push(event.clone());
    }
    // The board's own engine rules on the events.
    fn ruling(&mut self, _ruling: &Ruling) {}
    fn frame(&mut self, frame: u64, t: f64, thumbnail: Option<&[u8]>) {
        if let Some(jpeg) = thumbnail {
            self.board
                .thumbs
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(frame, jpeg);
        }
        self.flush(Some(t));
        self.board.send(Input::Frame { frame, t });
    }
    fn warning(&mut self, message: &str) {
        self.board.send(Input::Warning(message.to_string()));
    }
}

fn fail(board: &Board, reason: String) {
    board.send(Input::Status {
        status: Status::Error,
        reason: Some(reason),
    });
}

/// Runs the pipeline for `board` until its source ends (or fails: the board shows `error` with the reason).
pub fn run(
    board: &Arc<Board>,
    text: &str,
    calibration: Option<&Path>,
    models: &Path,
    _consumed: usize,
    opts: &BoardOptions,
) {
    let source = match Source::parse(text) {
        Ok(s) => s,
        Err(e) => return fail(board, format!("cannot use {text} as a source: {e}")),
    };
    let calibration = match calibration {
        Some(path) => match Calibration::load(path) {
            Ok(c) => c,
            Err(e) => return fail(board, format!("calibration {}: {e}", path.display())),
        },
        None => match calibrate_source(&source, &DetectOptions::default()) {
            Ok(c) => c,
            Err(e) => {
                return fail(
                    board,
                    format!("could not find the board automatically (give --calibration): {e}"),
                );
            }
        },
    };
    if calibration.white_side == WhiteSide::Unknown {
        return fail(board, "the calibration does not say which side White sits on".into());
    }
    // After a restart a file plays again from its start: its events up to the last one logged are not new.
    // A live source starts afresh from the position the log reached.
    let (skip_through, fen) = {
        let v = board.view();
        let last = v.records.iter().rev().find_map(|r| match &r.entry {
            Entry::Event {
                origin: Origin::Source,
                event,
                ..
            } => Some(event.frame),
            _ => None,
        });
        (last.flatten(), (!v.moves.is_empty()).then(|| v.fen.clone()))
    };
    let live = source.is_live();
    let mut rules = opts.rules.clone();
    if live && fen.is_some() {
        rules.start = fen;
    }
    let popts = PipelineOptions {
        rules,
        models_dir: models.to_path_buf(),
        realtime: !opts.as_fast_as_possible,
        ..PipelineOptions::default()
    };
    let mut sink = BoardSink {
        board: board.clone(),
        skip_through: if live { None } else { skip_through },
        pending: Vec::new(),
    };
    board.view().source_started_ms = Some(now_ms());
    board.send(Input::Status {
        status: Status::Live,
        reason: None,
    });
    let result = pipeline::run(source, &calibration, &popts, &mut sink);
    // Events the tracker gave at the end of the stream (no frame follows them).
    sink.flush(None);
    match result {
        Ok(summary) if summary.end.starts_with("Lost") => fail(
            board,
            format!("the camera was lost and could not be reopened: {}", summary.end),
        ),
        Ok(summary) => {
            let t = summary.fps.map(|f| summary.frames as f64 / f.max(1e-6)).unwrap_or(0.0);
            board.send(Input::End {
                t,
                frame: summary.frames.checked_sub(1),
            });
        }
        Err(e) => fail(board, e.to_string()),
    }
}
