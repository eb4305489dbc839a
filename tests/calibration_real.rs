//! Calibration on the real footage: automatic on the clips, the stills and tight crops,
//! orientation from the pieces, manual corners, the check picture, and clear errors for
//! broken calibration files, unreadable videos and pictures with no board.
#![cfg(feature = "vision")]

mod footage_support;
use footage_support::footage;

use std::path::{Path, PathBuf};
use std::process::Command;

use arbiter::calibration::detect::{self, CalibrationError, DetectOptions, image_order};
use arbiter::calibration::{Calibration, CalibrationFileError, WhiteSide};
use arbiter::capture::Source;
use opencv::core::{Mat, Rect, Scalar, Vector};
use opencv::imgcodecs;
use opencv::prelude::*;

fn temp_dir(name: &str) -> PathBuf {
    footage_support::temp_dir("calibration", name)
}

/// scholarsmate.avi's labelled corners in image order (TL, TR, BR, BL).
fn scholarsmate_truth() -> [[f64; 2]; 4] {
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(footage("scholarsmate.truth.json")).unwrap()).unwrap();
    let c = &t["board"]["corners_px"];
    let p = |k: &str| [c[k][0].as_f64().unwrap(), c[k][1].as_f64().unwrap()];
    [
        p("h8_top_left"),
        p("h1_top_right"),
        p("a1_bottom_right"),
        p("a8_bottom_left"),
    ]
}

/// The largest corner distance, in squares of the true board.
fn worst_error_in_squares(found: [[f64; 2]; 4], truth: [[f64; 2]; 4]) -> f64 {
    let side: f64 = (0..4)
        .map(|k| (truth[k][0] - truth[(k + 1) % 4][0]).hypot(truth[k][1] - truth[(k + 1) % 4][1]))
        .sum::<f64>()
        / 32.0;
    image_order(found)
        .iter()
        .zip(truth)
        .map(|(a, b)| (a[0] - b[0]).hypot(a[1] - b[1]) / side)
        .fold(0.0, f64::max)
}

/// The bar the automatic corners must clear: within a quarter of a square, so that
/// every square centre still falls on its own square with room to spare.
const MAX_CORNER_ERROR_SQUARES: f64 = 0.25;

#[test]
fn finds_the_board_and_white_on_the_right_in_scholarsmate() {
    let cal = detect::calibrate_source(&Source::File(footage("scholarsmate.avi")), &DetectOptions::default()).unwrap();
    assert_eq!(cal.white_side, WhiteSide::Right);
    assert_eq!(cal.method.as_deref(), Some("auto-pieces"));
    let err = worst_error_in_squares(cal.corners_px, scholarsmate_truth());
    assert!(err < MAX_CORNER_ERROR_SQUARES, "worst corner off by {err:.3} square");
    // a1 is the bottom-right corner.
    let [a1, ..] = cal.corners_px;
    assert!(a1[0] > 400.0 && a1[1] > 300.0, "a1 at {a1:?}");
    assert_eq!(cal.check(), Ok(()));
}

#[test]
fn an_empty_board_is_found_and_its_orientation_reported_unknown() {
    let cal = detect::calibrate_source(&Source::File(footage("emptyBoard001.avi")), &DetectOptions::default()).unwrap();
    assert_eq!(cal.white_side, WhiteSide::Unknown);
    // Image order, from the top-left, clockwise.
    assert_eq!(image_order(cal.corners_px), cal.corners_px);
    // Corners read by hand from frame 20 (see examples/measure_calibration.rs).
    let truth = [[141.0, 8.0], [508.0, 10.0], [510.0, 380.0], [137.0, 377.0]];
    let err = worst_error_in_squares(cal.corners_px, truth);
    assert!(err < MAX_CORNER_ERROR_SQUARES, "worst corner off by {err:.3} square");
}

#[test]
fn the_given_white_side_orders_the_corners() {
    let opts = DetectOptions {
        white_side: Some(WhiteSide::Right),
        ..DetectOptions::default()
    };
    let cal = detect::calibrate_source(&Source::File(footage("emptyBoard001.avi")), &opts).unwrap();
    assert_eq!(cal.white_side, WhiteSide::Right);
    let [a1, h1, h8, a8] = cal.corners_px;
    assert!(
        a1[0] > h8[0] && a1[1] > h8[1],
        "a1 {a1:?} must be bottom-right of h8 {h8:?}"
    );
    assert!(h1[1] < a1[1] && a8[0] < a1[0]);
}

#[test]
fn finds_the_board_on_every_still_and_the_white_side_where_pieces_show_it() {
    let stills: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(footage("stills.json")).unwrap()).unwrap();
    for s in stills["images"].as_array().unwrap() {
        let file = s["file"].as_str().unwrap();
        let c: Vec<[f64; 2]> = s["corners_px"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| [p[0].as_f64().unwrap(), p[1].as_f64().unwrap()])
            .collect();
        let cal = detect::calibrate_source(&Source::File(footage(file)), &DetectOptions::default())
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let err = worst_error_in_squares(cal.corners_px, [c[0], c[1], c[2], c[3]]);
        assert!(
            err < MAX_CORNER_ERROR_SQUARES,
            "{file}: worst corner off by {err:.3} square"
        );
        let has_pieces = s["position"] == "start";
        assert_eq!(
            cal.white_side != WhiteSide::Unknown,
            has_pieces,
            "{file}: {:?}",
            cal.white_side
        );
    }
    // White's pieces stand at the top of chessBoard003.jpg.
    let cal = detect::calibrate_source(&Source::File(footage("chessBoard003.jpg")), &DetectOptions::default()).unwrap();
    assert_eq!(cal.white_side, WhiteSide::Top);
}

#[test]
fn a_tight_crop_with_the_corners_just_outside_is_extrapolated() {
    // Frames of scholarsmate.avi cropped 5 px inside the true corners on every side,
    // written as a folder of images.
    let truth = scholarsmate_truth();
    let dir = temp_dir("crop");
    let rect = Rect::new(145, 15, 505 - 145 - 5, 372 - 15);
    let (frames, _) = arbiter::capture::read_all(Source::File(footage("scholarsmate.avi")), Some(80)).unwrap();
    for f in frames.iter().step_by(8) {
        let crop = Mat::roi(&f.image, rect).unwrap().try_clone().unwrap();
        let path = dir.join(format!("f{:03}.png", f.index));
        assert!(imgcodecs::imwrite(path.to_str().unwrap(), &crop, &Vector::new()).unwrap());
    }
    let opts = DetectOptions {
        span_s: 10.0,
        ..DetectOptions::default()
    };
    let cal = detect::calibrate_source(&Source::ImageFolder(dir), &opts).unwrap();
    let moved = truth.map(|[x, y]| [x - 145.0, y - 15.0]);
    let err = worst_error_in_squares(cal.corners_px, moved);
    assert!(err < MAX_CORNER_ERROR_SQUARES, "worst corner off by {err:.3} square");
    let outside = cal
        .corners_px
        .iter()
        .filter(|[x, y]| *x < 0.0 || *y < 0.0 || *x > rect.width as f64 || *y > rect.height as f64);
    assert!(
        outside.count() >= 3,
        "the outer corners lie outside the crop: {:?}",
        cal.corners_px
    );
    assert_eq!(cal.white_side, WhiteSide::Right);
}

#[test]
fn a_picture_without_a_board_says_how_to_give_the_corners() {
    let dir = temp_dir("blank");
    let path = dir.join("table.png");
    let blank =
        Mat::new_rows_cols_with_default(480, 640, opencv::core::CV_8UC3, Scalar::new(90.0, 120.0, 160.0, 0.0)).unwrap();
    assert!(imgcodecs::imwrite(path.to_str().unwrap(), &blank, &Vector::new()).unwrap());
    let err = detect::calibrate_source(&Source::File(path), &DetectOptions::default()).unwrap_err();
    assert!(matches!(err, CalibrationError::NotFound { .. }));
    assert!(err.to_string().contains("--corners"), "{err}");
}

#[test]
fn broken_and_missing_calibration_files_are_clear_errors() {
    let dir = temp_dir("files");
    let missing = Calibration::load(&dir.join("nope.toml")).unwrap_err();
    assert!(matches!(missing, CalibrationFileError::Read { .. }), "{missing}");
    let garbled = dir.join("garbled.toml");
    std::fs::write(&garbled, "width = 640\nheight = \ncorners_px = [[1,2]]\n").unwrap();
    assert!(matches!(
        Calibration::load(&garbled).unwrap_err(),
        CalibrationFileError::Parse { .. }
    ));
    // The worked example with its homography edited by hand no longer agrees with its corners.
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("calibration/scholarsmate.toml");
    let text = std::fs::read_to_string(&example)
        .unwrap()
        .replacen("8.0675", "9.0675", 1);
    let edited = dir.join("edited.toml");
    std::fs::write(&edited, text).unwrap();
    assert!(matches!(
        Calibration::load(&edited).unwrap_err(),
        CalibrationFileError::Invalid { .. }
    ));
    // The command says so and fails.
    let out = arbiter(&[
        "calibrate",
        "--check",
        footage("scholarsmate.avi").to_str().unwrap(),
        "--calibration",
        edited.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("homography does not agree"));
}

#[test]
fn the_command_reports_an_unreadable_video() {
    let dir = temp_dir("unreadable");
    let junk = dir.join("broken.mp4");
    std::fs::write(&junk, vec![0x42u8; 10_000]).unwrap();
    let out = arbiter(&["calibrate", junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot open") || err.contains("gave no frame"), "{err}");
}

#[test]
fn manual_corners_and_the_check_picture() {
    let dir = temp_dir("manual");
    let toml = dir.join("sm.toml");
    let src = footage("scholarsmate.avi");
    let out = arbiter(&[
        "calibrate",
        src.to_str().unwrap(),
        "--corners",
        "507,377,506,10,140,5,137,374",
        "--clock",
        "white=560,400,620,400,620,460,560,460",
        "--out",
        toml.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cal = Calibration::load(&toml).unwrap();
    assert_eq!(
        (cal.white_side, cal.method.as_deref()),
        (WhiteSide::Right, Some("manual"))
    );
    assert_eq!(cal.regions.len(), 1);
    // Corners that contradict the given side are refused.
    let out = arbiter(&[
        "calibrate",
        src.to_str().unwrap(),
        "--corners",
        "507,377,506,10,140,5,137,374",
        "--white-side",
        "left",
    ]);
    assert_eq!(out.status.code(), Some(2));
    // The check picture: the frame with the grid drawn over it.
    let png = dir.join("check.png");
    let out = arbiter(&[
        "calibrate",
        "--check",
        src.to_str().unwrap(),
        "--calibration",
        toml.to_str().unwrap(),
        "--out",
        png.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pic = imgcodecs::imread(png.to_str().unwrap(), imgcodecs::IMREAD_COLOR).unwrap();
    assert_eq!((pic.cols(), pic.rows()), (640, 480));
    // The a1 corner (507, 377) is marked in red.
    let red = (-3..=3)
        .flat_map(|dy| (-3..=3).map(move |dx| (dx, dy)))
        .filter(|&(dx, dy)| {
            let p = pic.at_2d::<opencv::core::Vec3b>(377 + dy, 507 + dx).unwrap();
            p[2] > 200 && p[1] < 80 && p[0] < 80
        })
        .count();
    assert!(red > 0, "no red mark at a1");
}

/// Runs the command (`ARBITER_BIN` overrides the binary cargo built, for a shared
/// target directory where another build may have replaced it).
fn arbiter(args: &[&str]) -> std::process::Output {
    let bin = std::env::var("ARBITER_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_arbiter").into());
    Command::new(bin)
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .output()
        .unwrap()
}
