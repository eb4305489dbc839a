//! Piece reader speed on one thread: model inference per frame (rectified input ready)
//! and the adaptation's cost at game start. `cargo bench --bench pieces`.
//! Uses the first frame of ../shared/footage/real/scholarsmate.avi when present (the
//! speed does not depend on the picture), else a grey frame.

use std::path::Path;
use std::time::Instant;

use opencv::core::{CV_8UC1, CV_8UC3, Mat, Scalar};
use opencv::prelude::*;
use opencv::videoio;

use arbiter::calibration::Calibration;
use arbiter::calibration::rectify::{Rectified, Rectifier};
use arbiter::geometry::RectifiedView;
use arbiter::vision::pieces::{ConfirmedPlacement, DEFAULT_MODEL, PieceReader};

fn frame() -> anyhow::Result<Rectified> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let video = root.join("../shared/footage/real/scholarsmate.avi");
    if video.exists() {
        let mut cap = videoio::VideoCapture::from_file(&video, videoio::CAP_ANY)?;
        let mut m = Mat::default();
        for _ in 0..28 {
            cap.read(&mut m)?;
        }
        let cal = Calibration::load(&root.join("calibration/scholarsmate.toml"))?;
        return Ok(Rectifier::new(&cal, RectifiedView::STANDARD)?.rectify(&m)?);
    }
    let n = RectifiedView::STANDARD.size() as i32;
    Ok(Rectified {
        image: Mat::new_rows_cols_with_default(n, n, CV_8UC3, Scalar::all(128.0))?,
        known: Mat::new_rows_cols_with_default(n, n, CV_8UC1, Scalar::all(255.0))?,
        view: RectifiedView::STANDARD,
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut reader = PieceReader::new(&root.join(DEFAULT_MODEL))?;
    let rect = frame()?;
    for _ in 0..5 {
        reader.read(&rect)?;
    }
    let mut read_ms = Vec::new();
    for _ in 0..100 {
        let t = Instant::now();
        reader.read(&rect)?;
        read_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let reading = reader.read(&rect)?;
    let mut adapt_ms = Vec::new();
    for _ in 0..5 {
        reader.reset_adaptation();
        let t = Instant::now();
        reader.adapt(&reading, &ConfirmedPlacement::game_start(shakmaty::Board::new()));
        adapt_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let mut adapted_ms = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        reader.read(&rect)?;
        adapted_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "pieces: read (input + model, 1 thread) median {:.2} ms over 100 frames",
        median(read_ms)
    );
    println!(
        "pieces: read with adaptation active median {:.2} ms over 50 frames",
        median(adapted_ms)
    );
    println!(
        "pieces: adaptation fit at game start (64 squares + CV) median {:.1} ms over 5 fits",
        median(adapt_ms)
    );
    Ok(())
}
