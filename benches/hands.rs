//! Time per frame of each part of the hand detector, on one thread.
//!
//! `cargo bench --bench hands -- [VIDEO] [CALIBRATION]`
//! (defaults: ../shared/footage/real/scholarsmate.avi, calibration/scholarsmate.toml).
//! Prints, per model variant, the palm detector per run, the landmark model per run and
//! runs per frame (it runs only where a hand is followed or a palm was found), the
//! occluder per frame (rectification included), and the whole detector per frame.

use std::path::PathBuf;
use std::time::Instant;

use opencv::core::Mat;
use opencv::prelude::*;
use opencv::videoio;

use arbiter::calibration::Calibration;
use arbiter::vision::hands::{HandDetector, HandOptions, Variant};

fn main() -> anyhow::Result<()> {
    // `cargo bench` adds `--bench`; the rest are the optional video and calibration.
    let args: Vec<String> = std::env::args().filter(|a| !a.starts_with("--")).collect();
    let video = PathBuf::from(
        args.get(1)
            .map(String::as_str)
            .unwrap_or("../shared/footage/real/scholarsmate.avi"),
    );
    let cal = Calibration::load(&PathBuf::from(
        args.get(2)
            .map(String::as_str)
            .unwrap_or("calibration/scholarsmate.toml"),
    ))?;
    let mut frames = Vec::new();
    let mut cap = videoio::VideoCapture::from_file(&video, videoio::CAP_ANY)?;
    let mut f = Mat::default();
    while cap.read(&mut f)? {
        frames.push(f.clone());
    }
    anyhow::ensure!(!frames.is_empty(), "no frames in {}", video.display());
    println!("{} frames of {}, one thread", frames.len(), video.display());
    for (palm, landmark) in [(Variant::Full, Variant::Full), (Variant::Lite, Variant::Lite)] {
        let opts = HandOptions {
            palm,
            landmark,
            threads: 1,
            ..HandOptions::default()
        };
        let mut det = HandDetector::new(&PathBuf::from("models/hands"), opts)?;
        let (mut palm_s, mut palm_runs, mut lm_s, mut lm_runs, mut occ_s) = (0.0, 0usize, 0.0, 0usize, 0.0);
        let start = Instant::now();
        for (i, frame) in frames.iter().enumerate() {
            det.detect(frame, i as f64 / 20.0, i as u64, Some(&cal))?;
            let t = det.times;
            if t.palm > 0.0 {
                palm_s += t.palm;
                palm_runs += 1;
            }
            lm_s += t.landmark;
            lm_runs += t.landmark_runs;
            occ_s += t.occluder;
        }
        let total = start.elapsed().as_secs_f64();
        let n = frames.len() as f64;
        println!(
            "{palm:?}/{landmark:?}: palm {:.1} ms per run ({} runs), landmark {:.1} ms per run ({:.2} runs per frame), \
             occluder {:.1} ms per frame, whole detector {:.1} ms per frame",
            palm_s / palm_runs.max(1) as f64 * 1e3,
            palm_runs,
            lm_s / lm_runs.max(1) as f64 * 1e3,
            lm_runs as f64 / n,
            occ_s / n * 1e3,
            total / n * 1e3
        );
    }
    Ok(())
}
