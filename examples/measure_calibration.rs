//! Measures automatic calibration against the labelled real footage:
//! `cargo run --release --example measure_calibration [-- FOOTAGE_DIR]`
//! (default `../shared/footage/real`).
//!
//! For every still in `stills.json`, `scholarsmate.avi` (truth in its truth file) and
//! `emptyBoard001.avi` (truth corners read by hand from frame 0, see
//! `EMPTY_BOARD_TRUTH`), and for a tight crop of each (the board fills the picture,
//! its outer corners `CROP_OUTSIDE` of a square outside it; the truth moves with the
//! crop): corner error in pixels and as a share of a square, success, orientation
//! found, time to calibrate. Prints a Markdown table.

use std::path::{Path, PathBuf};
use std::time::Instant;

use arbiter::calibration::detect::{self, DetectOptions, image_order};
use arbiter::calibration::{Calibration, WhiteSide};
use arbiter::capture::Source;
use opencv::core::{Mat, Rect};
use opencv::imgcodecs;
use opencv::prelude::*;

/// emptyBoard001.avi, outer corners of the playing area (the outer edge of the thin
/// dark inlay line around the squares) in image order (TL, TR, BR, BL), read by hand
/// from an 8x zoom of frame 20 (`ffmpeg ... -vf "select=eq(n\,20)"`, then crops around
/// each corner), to about 1 px. No pieces: White's side is not visible.
const EMPTY_BOARD_TRUTH: [[f64; 2]; 4] = [[141.0, 8.0], [508.0, 10.0], [510.0, 380.0], [137.0, 377.0]];

/// How far the outer corners lie outside a tight crop, in squares.
const CROP_OUTSIDE: f64 = 0.1;

struct Case {
    name: String,
    frames: Vec<Mat>,
    truth_img_order: [[f64; 2]; 4],
    truth_side: Option<WhiteSide>,
}

fn main() -> anyhow::Result<()> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "../shared/footage/real".into()),
    );
    let mut cases = Vec::new();
    let stills: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("stills.json"))?)?;
    for s in stills["images"].as_array().into_iter().flatten() {
        let file = s["file"].as_str().unwrap_or_default();
        let img = imgcodecs::imread(dir.join(file).to_str().unwrap_or_default(), imgcodecs::IMREAD_COLOR)?;
        let c: Vec<[f64; 2]> = s["corners_px"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| [p[0].as_f64().unwrap_or(0.0), p[1].as_f64().unwrap_or(0.0)])
            .collect();
        let truth = [c[0], c[1], c[2], c[3]];
        let side = still_side(file);
        cases.push(Case {
            name: file.into(),
            frames: vec![img],
            truth_img_order: truth,
            truth_side: side,
        });
    }
    let opts = DetectOptions::default();
    let sm = Source::File(dir.join("scholarsmate.avi"));
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("scholarsmate.truth.json"))?)?;
    let b = &truth["board"]["corners_px"];
    let p = |k: &str| [b[k][0].as_f64().unwrap_or(0.0), b[k][1].as_f64().unwrap_or(0.0)];
    let sm_truth = [
        p("h8_top_left"),
        p("h1_top_right"),
        p("a1_bottom_right"),
        p("a8_bottom_left"),
    ];
    cases.push(Case {
        name: "scholarsmate.avi".into(),
        frames: detect::sample_frames(&sm, &opts)?,
        truth_img_order: sm_truth,
        truth_side: Some(WhiteSide::Right),
    });
    let eb = Source::File(dir.join("emptyBoard001.avi"));
    cases.push(Case {
        name: "emptyBoard001.avi".into(),
        frames: detect::sample_frames(&eb, &opts)?,
        truth_img_order: EMPTY_BOARD_TRUTH,
        truth_side: None,
    });
    let crops: Vec<Case> = cases.iter().map(crop_case).collect::<anyhow::Result<_>>()?;
    cases.extend(crops);

    println!(
        "| case | frames | found | method | mean corner err px | max px | share of a square | white side (truth) | reproj px | time s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let (mut found, mut total) = (0, 0);
    let (mut side_right, mut with_pieces, mut unknown_when_empty, mut empty) = (0, 0, 0, 0);
    let mut shares = Vec::new();
    for case in &cases {
        total += 1;
        let t = Instant::now();
        let result = detect::calibrate_frames(&case.frames, &opts);
        let secs = t.elapsed().as_secs_f64();
        let sq = square_px(&case.truth_img_order);
        match result {
            Ok(cal) => {
                found += 1;
                let (mean, max) = corner_error(&cal, &case.truth_img_order);
                shares.push(mean / sq);
                match case.truth_side {
                    Some(s) => {
                        with_pieces += 1;
                        side_right += usize::from(cal.white_side == s);
                    }
                    None => {
                        empty += 1;
                        unknown_when_empty += usize::from(cal.white_side == WhiteSide::Unknown);
                    }
                }
                let side_ok = match case.truth_side {
                    Some(s) => format!("{:?} ({:?})", cal.white_side, s),
                    None => format!("{:?} (none visible)", cal.white_side),
                };
                println!(
                    "| {} | {} | yes | {} | {:.2} | {:.2} | {:.3} | {} | {:.2} | {:.2} |",
                    case.name,
                    case.frames.len(),
                    cal.method.as_deref().unwrap_or("?"),
                    mean,
                    max,
                    mean / sq,
                    side_ok,
                    cal.reprojection_error_px.unwrap_or(f64::NAN),
                    secs
                );
                if let Ok(out) = std::env::var("MEASURE_CHECK_DIR") {
                    let png = Path::new(&out).join(format!("{}.png", case.name.replace('/', "_")));
                    let pic = arbiter::calibration::check::draw_check(&case.frames[0], &cal)?;
                    imgcodecs::imwrite(png.to_str().unwrap_or_default(), &pic, &opencv::core::Vector::new())?;
                }
            }
            Err(e) => {
                let short: String = e.to_string().chars().take(60).collect();
                println!(
                    "| {} | {} | NO: {short}… | | | | | | | {:.2} |",
                    case.name,
                    case.frames.len(),
                    secs
                );
            }
        }
    }
    shares.sort_by(f64::total_cmp);
    println!(
        "\nfound {found} of {total}; corner error (mean of the 4 corners) as a share of a square: median {:.3}, worst {:.3}; \
         White's side right on {side_right} of {with_pieces} found boards with pieces; reported unknown on \
         {unknown_when_empty} of {empty} found empty boards",
        shares.get(shares.len() / 2).copied().unwrap_or(f64::NAN),
        shares.last().copied().unwrap_or(f64::NAN)
    );
    Ok(())
}

/// White's side in the stills with pieces, read by eye from the pictures (stills.json
/// does not label it): the light pieces' edge.
fn still_side(file: &str) -> Option<WhiteSide> {
    match file {
        "chessBoard003.jpg" => Some(WhiteSide::Top),
        "chessBoard005.jpg" | "chessBoard006.jpg" | "chessBoard007.jpg" => Some(WhiteSide::Left),
        _ => None,
    }
}

fn square_px(c: &[[f64; 2]; 4]) -> f64 {
    (0..4)
        .map(|k| (c[k][0] - c[(k + 1) % 4][0]).hypot(c[k][1] - c[(k + 1) % 4][1]))
        .sum::<f64>()
        / 32.0
}

fn corner_error(cal: &Calibration, truth: &[[f64; 2]; 4]) -> (f64, f64) {
    let found = image_order(cal.corners_px);
    let d: Vec<f64> = found
        .iter()
        .zip(truth)
        .map(|(a, b)| (a[0] - b[0]).hypot(a[1] - b[1]))
        .collect();
    (d.iter().sum::<f64>() / 4.0, d.iter().copied().fold(0.0, f64::max))
}

/// The case cropped so that the board fills the picture with its outer corners
/// `CROP_OUTSIDE` of a square outside it.
fn crop_case(case: &Case) -> anyhow::Result<Case> {
    let t = &case.truth_img_order;
    let inset = CROP_OUTSIDE * square_px(t);
    let (w, h) = (case.frames[0].cols() as f64, case.frames[0].rows() as f64);
    // The crop lies inside the corners' bounding box by `inset` on every side.
    let x0 = (t.iter().map(|p| p[0]).fold(f64::MAX, f64::min) + inset)
        .max(0.0)
        .floor();
    let y0 = (t.iter().map(|p| p[1]).fold(f64::MAX, f64::min) + inset)
        .max(0.0)
        .floor();
    let x1 = (t.iter().map(|p| p[0]).fold(f64::MIN, f64::max) - inset).min(w).ceil();
    let y1 = (t.iter().map(|p| p[1]).fold(f64::MIN, f64::max) - inset).min(h).ceil();
    let rect = Rect::new(x0 as i32, y0 as i32, (x1 - x0) as i32, (y1 - y0) as i32);
    let frames = case
        .frames
        .iter()
        .map(|f| Mat::roi(f, rect).and_then(|m| m.try_clone()))
        .collect::<Result<_, _>>()?;
    Ok(Case {
        name: format!("{} cropped", case.name),
        frames,
        truth_img_order: t.map(|[x, y]| [x - x0, y - y0]),
        truth_side: case.truth_side,
    })
}
