//! `arbiter hands`: every hand over the board, frame by frame, as JSON Lines.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use opencv::core::{Mat, Point, Rect, Scalar, Vector};
use opencv::prelude::*;
use opencv::{imgcodecs, imgproc, videoio};

use arbiter::calibration::Calibration;
use arbiter::observation::HandSource;
use arbiter::vision::hands::{HandDetector, HandOptions, HandTrack, Variant};

/// Find the hands over the board in a video: one JSON line per frame on stdout,
/// `{"frame":N,"t":S,"hands":[{"score","box":[x0,y0,x1,y1],"keypoints":[[x,y,score]..21]|null,
/// "tips":[[x,y,score]..],"entry":"left|right|top|bottom","source":"landmarks|occluder|both"}]}`
/// in pixels of the source video.
///
/// Two detectors are fused: MediaPipe's palm and hand-landmark models (with tracking from
/// frame to frame), and, when a calibration is given, the occluder, which sees arms that
/// change the board's appearance and enter from its edge.
#[derive(clap::Args)]
pub struct Args {
    /// The video file to read.
    pub video: PathBuf,
    /// The board calibration (TOML, from `arbiter calibrate`); enables the occluder.
    #[arg(long)]
    pub calibration: Option<PathBuf>,
    /// Write a PNG per frame with the hands drawn into this folder.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Folder holding the hand models (palm_detection_*.onnx, hand_landmark_*.onnx).
    #[arg(long, default_value = "models/hands")]
    pub models: PathBuf,
    /// Palm detector size: full or lite.
    #[arg(long, default_value = "full")]
    pub palm: Variant,
    /// Landmark model size: full or lite.
    #[arg(long, default_value = "full")]
    pub landmark: Variant,
    /// Palm detector score threshold (0..1).
    #[arg(long, default_value_t = 0.5)]
    pub min_palm_score: f32,
    /// Landmark model hand-presence threshold (0..1).
    #[arg(long, default_value_t = 0.5)]
    pub min_presence: f32,
    /// Only the occluder (needs --calibration): skip MediaPipe's models.
    #[arg(long, conflicts_with = "no_occluder")]
    pub no_landmarks: bool,
    /// Only MediaPipe's models: skip the occluder.
    #[arg(long)]
    pub no_occluder: bool,
    /// Print the mean time per frame of each part to stderr at the end.
    #[arg(long)]
    pub times: bool,
    /// Stop after this many frames (default: the whole video).
    #[arg(long)]
    pub frames: Option<u64>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !args.video.exists() {
        bail!("video {} does not exist", args.video.display());
    }
    let calibration = match &args.calibration {
        Some(p) => Some(Calibration::load(p)?),
        None => None,
    };
    if args.no_landmarks && calibration.is_none() {
        bail!("--no-landmarks leaves only the occluder, which needs --calibration");
    }
    for (name, v) in [
        ("--min-palm-score", args.min_palm_score),
        ("--min-presence", args.min_presence),
    ] {
        if !(0.0..=1.0).contains(&v) {
            bail!("{name} must be between 0 and 1, got {v}");
        }
    }
    let opts = HandOptions {
        palm: args.palm,
        landmark: args.landmark,
        min_palm_score: args.min_palm_score,
        min_presence: args.min_presence,
        landmarks: !args.no_landmarks,
        occluder: !args.no_occluder,
        ..HandOptions::default()
    };
    let mut detector = HandDetector::new(&args.models, opts)?;
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut cap = videoio::VideoCapture::from_file(&args.video, videoio::CAP_ANY)?;
    if !cap.is_opened()? {
        bail!("cannot open video {}", args.video.display());
    }
    let fps = cap.get(videoio::CAP_PROP_FPS)?;
    let fps = if fps.is_finite() && fps > 0.0 { fps } else { 25.0 };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut frame = Mat::default();
    let (mut n, mut totals) = (0u64, [0.0f64; 4]);
    while args.frames.is_none_or(|max| n < max) && cap.read(&mut frame)? {
        if frame.empty() {
            break;
        }
        let t = n as f64 / fps;
        let hands = detector.detect(&frame, t, n, calibration.as_ref())?;
        let times = detector.times;
        totals[0] += times.palm;
        totals[1] += times.landmark;
        totals[2] += times.occluder;
        totals[3] += times.landmark_runs as f64;
        let line = serde_json::json!({ "frame": n, "t": (t * 1000.0).round() / 1000.0, "hands": hands });
        writeln!(out, "{line}")?;
        if let Some(dir) = &args.out {
            let mut img = frame.clone();
            draw(&mut img, &hands)?;
            let path = dir.join(format!("{n:06}.png"));
            imgcodecs::imwrite(&path, &img, &Vector::new())?;
        }
        n += 1;
    }
    if n == 0 {
        bail!("video {} gave no frames", args.video.display());
    }
    if args.times {
        let ms = |s: f64| s / n as f64 * 1000.0;
        eprintln!(
            "{n} frames: palm {:.1} ms, landmark {:.1} ms ({:.2} runs), occluder {:.1} ms per frame",
            ms(totals[0]),
            ms(totals[1]),
            totals[3] / n as f64,
            ms(totals[2])
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The 21-landmark skeleton as (from, to) pairs.
#[rustfmt::skip]
const BONES: [(usize, usize); 20] = [
    (0, 1), (1, 2), (2, 3), (3, 4), (0, 5), (5, 6), (6, 7), (7, 8), (5, 9), (9, 10),
    (10, 11), (11, 12), (9, 13), (13, 14), (14, 15), (15, 16), (13, 17), (17, 18), (18, 19), (19, 20),
];

fn draw(img: &mut Mat, hands: &[HandTrack]) -> opencv::Result<()> {
    let pt = |p: &[f32; 3]| Point::new(p[0].round() as i32, p[1].round() as i32);
    for h in hands {
        let colour = match h.source {
            HandSource::Landmarks => Scalar::new(255.0, 160.0, 0.0, 0.0),
            HandSource::Occluder => Scalar::new(0.0, 200.0, 255.0, 0.0),
            HandSource::Both => Scalar::new(0.0, 220.0, 0.0, 0.0),
        };
        let b = h.bbox.map(|v| v.round() as i32);
        imgproc::rectangle(
            img,
            Rect::new(b[0], b[1], b[2] - b[0], b[3] - b[1]),
            colour,
            1,
            imgproc::LINE_8,
            0,
        )?;
        if let Some(k) = &h.keypoints {
            for &(a, c) in &BONES {
                imgproc::line(img, pt(&k[a]), pt(&k[c]), colour, 1, imgproc::LINE_AA, 0)?;
            }
        }
        for tip in &h.tips {
            imgproc::circle(
                img,
                pt(tip),
                4,
                Scalar::new(0.0, 0.0, 255.0, 0.0),
                2,
                imgproc::LINE_AA,
                0,
            )?;
        }
        let label = format!("{:?} {:.2} from {:?}", h.source, h.score, h.entry).to_lowercase();
        let org = Point::new(b[0].max(2), (b[1] - 4).max(12));
        imgproc::put_text(
            img,
            &label,
            org,
            imgproc::FONT_HERSHEY_SIMPLEX,
            0.4,
            colour,
            1,
            imgproc::LINE_AA,
            false,
        )?;
    }
    Ok(())
}
