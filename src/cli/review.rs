//! `arbiter review`: a recording in, everything an arbiter needs out.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use arbiter::calibration::Calibration;
use arbiter::calibration::detect::{DetectOptions, calibrate_source};
use arbiter::capture::Source;
use arbiter::pipeline::{self, PipelineOptions, Sink};
use arbiter::report::ReviewWriter;
use arbiter::rules::{Event, Ruling};
use indicatif::{ProgressBar, ProgressStyle};

use super::common::RulesArgs;

/// Review a recorded game: every move, every touch in order, every violation with its article, sanction and
/// the frames that prove it.
///
/// Writes into DIR: events.jsonl (what the camera saw, each event with its frame; `arbiter rule` reads it),
/// rulings.jsonl (moves and rulings), game.pgn (with times and the violations as comments), report.html (a page
/// an arbiter can read, with evidence thumbnails) and summary.json (speed and what was measured).
/// Without --calibration it finds the board itself in the first seconds of the video.
#[derive(clap::Args)]
pub struct Args {
    /// The recording (any file OpenCV reads: AVI, MP4, MKV), or a folder of images.
    pub video: String,
    /// Where to write the review.
    #[arg(long)]
    pub out: PathBuf,
    /// The board's calibration (from `arbiter calibrate`); found automatically when not given.
    #[arg(long)]
    pub calibration: Option<PathBuf>,
    /// With automatic calibration: the edge of the picture White sits at, when the pieces cannot tell.
    #[arg(long = "white-side", value_enum)]
    pub white_side: Option<super::calibrate::SideArg>,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// The folder holding the hands/ and pieces/ models.
    #[arg(long, default_value = "models")]
    pub models: PathBuf,
    /// Run the models on every frame, even where nothing moves.
    #[arg(long)]
    pub every_frame: bool,
    /// Also write what the vision stage saw in every frame (JSON Lines of hands and
    /// square probabilities in board coordinates), to replay the tracker without pixels.
    #[arg(long, value_name = "FILE")]
    pub observations: Option<PathBuf>,
}

struct Progress {
    writer: ReviewWriter,
    bar: ProgressBar,
}

impl Sink for Progress {
    fn event(&mut self, e: &Event) {
        self.writer.event(e);
    }
    fn ruling(&mut self, r: &Ruling) {
        if !matches!(r.kind, arbiter::rules::RulingKind::Move { .. }) {
            self.bar.println(r.summary());
        }
        self.writer.ruling(r);
    }
    fn frame(&mut self, frame: u64, _t: f64, thumbnail: Option<&[u8]>) {
        self.writer.frame(frame, thumbnail);
        self.bar.set_position(frame + 1);
    }
    fn warning(&mut self, message: &str) {
        self.bar.println(format!("warning: {message}"));
        self.writer.warning(message);
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let source = Source::parse(&args.video).with_context(|| format!("cannot use {} as a video", args.video))?;
    let calibration = match &args.calibration {
        Some(path) => Calibration::load(path)?,
        None => {
            let mut opts = DetectOptions::default();
            opts.white_side = args.white_side.map(Into::into);
            eprintln!(
                "arbiter review: no --calibration given; finding the board in {} ...",
                args.video
            );
            calibrate_source(&source, &opts).context(
                "could not find the board automatically; calibrate by hand with \
                 `arbiter calibrate VIDEO --corners x1,y1,...` and pass --calibration",
            )?
        }
    };
    if calibration.white_side == arbiter::calibration::WhiteSide::Unknown {
        anyhow::bail!(
            "the calibration does not say which side White sits on; give --white-side left|right|top|bottom \
             (or calibrate on a frame with the pieces in the initial position)"
        );
    }
    let models = arbiter::vision::onnx::locate_models(&args.models);
    let total = arbiter::capture::open_file(std::path::Path::new(&args.video))
        .ok()
        .and_then(|(_, info)| info.frame_count);
    let bar = match total {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::new_spinner(),
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} reviewing [{bar:30}] {pos}/{len} frames ({per_sec}, {eta} left)")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let mut writer = ReviewWriter::create(&args.out)?;
    // Evidence thumbnails are the source picture scaled to the thumbnail's width.
    if let Ok(to_image) = calibration.image_to_board().inverse() {
        let k = f64::from(PipelineOptions::default().thumbnail_width) / f64::from(calibration.width.max(1));
        let scale = arbiter::geometry::Homography([[k, 0.0, 0.0], [0.0, k, 0.0], [0.0, 0.0, 1.0]]);
        writer.mark_squares(scale.after(&to_image));
    }
    let mut sink = Progress { writer, bar };
    let opts = PipelineOptions {
        rules: args.rules.config(None),
        models_dir: models,
        skip_still: !args.every_frame,
        observations_out: args.observations.clone(),
        ..PipelineOptions::default()
    };
    let run = pipeline::run(source, &calibration, &opts, &mut sink)?;
    sink.bar.finish_and_clear();
    let summary = serde_json::json!({
        "source": args.video,
        "frames": run.frames,
        "fps": run.fps,
        "wall_s": (run.wall_s * 100.0).round() / 100.0,
        "frames_per_second_processed": if run.wall_s > 0.0 { run.frames as f64 / run.wall_s } else { 0.0 },
        "times_s": run.times,
        "end": run.end,
        "adaptation": run.adaptation,
        "laws": format!("{:?}", opts.rules.laws),
        "time_control": format!("{:?}", opts.rules.time_control),
        "calibration": calibration,
    });
    let title = std::path::Path::new(&args.video)
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let report = sink.writer.finish(&title, &summary)?;
    let speed = match run.fps {
        Some(fps) if run.wall_s > 0.0 => format!(", {:.1}x real time", run.frames as f64 / fps / run.wall_s),
        _ => String::new(),
    };
    eprintln!("arbiter review: {} frames in {:.1}s{speed}", run.frames, run.wall_s);
    println!("{}", report.display());
    Ok(ExitCode::SUCCESS)
}
