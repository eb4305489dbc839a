//! The hand detector on real frames of `../shared/footage/real/scholarsmate.avi`, frames
//! named in its truth file (`scholarsmate.truth.json`): hands over the board, a hand
//! resting on a piece, still frames, moving shadows, pieces just moved; and bad input.
//!
//! The clip is read once (frames 0..=302, in order, as the detector must see them) and
//! shared by the tests of this file.
#![cfg(feature = "vision")]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use opencv::core::{CV_8UC1, Mat, Scalar};
use opencv::prelude::*;
use opencv::videoio;

use arbiter::calibration::Calibration;
use arbiter::geometry::{BoardEdge, BoardPoint};
use arbiter::observation::HandSource;
use arbiter::vision::hands::{HandDetector, HandOptions, HandTrack, HandsError};
use shakmaty::Square;

const LAST_FRAME: usize = 302;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn clip() -> PathBuf {
    let p = root().join("../shared/footage/real/scholarsmate.avi");
    assert!(
        p.exists(),
        "missing {}: the hand tests need the real clip (../shared beside the repository)",
        p.display()
    );
    p
}

fn calibration() -> Calibration {
    Calibration::load(&root().join("calibration/scholarsmate.toml")).expect("calibration/scholarsmate.toml")
}

/// Every frame's tracks from 0 to LAST_FRAME, computed once.
fn tracks() -> &'static Vec<Vec<HandTrack>> {
    static RUN: OnceLock<Vec<Vec<HandTrack>>> = OnceLock::new();
    RUN.get_or_init(|| {
        let cal = calibration();
        let mut det =
            HandDetector::new(&root().join("models/hands"), HandOptions::default()).expect("hand models load");
        let mut cap = videoio::VideoCapture::from_file(clip(), videoio::CAP_ANY).expect("open clip");
        let mut frame = Mat::default();
        let mut out = Vec::new();
        while out.len() <= LAST_FRAME && cap.read(&mut frame).expect("read frame") {
            let n = out.len();
            out.push(
                det.detect(&frame, n as f64 / 20.0, n as u64, Some(&cal))
                    .expect("detect"),
            );
        }
        assert_eq!(out.len(), LAST_FRAME + 1, "the clip ended early");
        out
    })
}

fn frames_with_hands(range: impl IntoIterator<Item = usize>) -> Vec<usize> {
    range.into_iter().filter(|&f| !tracks()[f].is_empty()).collect()
}

#[test]
fn hands_over_the_board_are_found_with_their_side() {
    let h = calibration().image_to_board();
    // (frame, the side the truth file says the arm comes from)
    for (f, side) in [
        (35, BoardEdge::WhiteSide),
        (50, BoardEdge::BlackSide),
        (100, BoardEdge::BlackSide),
        (170, BoardEdge::WhiteSide),
    ] {
        let hands = &tracks()[f];
        assert!(!hands.is_empty(), "frame {f}: no hand found");
        let obs = hands[0].to_observation(&h);
        assert_eq!(
            obs.entry,
            Some(side),
            "frame {f}: arm should come from {side:?}, got {:?}",
            obs.entry
        );
        assert!(!obs.tips.is_empty(), "frame {f}: no fingertip");
        assert!(
            obs.tips.iter().any(|t| t.at.outside_by() < 0.0),
            "frame {f}: no fingertip over the board"
        );
    }
}

#[test]
fn a_hand_resting_still_on_the_c4_bishop_stays_a_hand() {
    // Ply 5 (Bc4): the hand rests on the bishop on c4 from about 163 to 181.
    let h = calibration().image_to_board();
    let c4 = BoardPoint::centre_of(Square::C4);
    for f in 165..=180 {
        let hands = &tracks()[f];
        assert!(!hands.is_empty(), "frame {f}: the resting hand was lost");
        let near = hands
            .iter()
            .flat_map(|t| t.to_observation(&h).tips)
            .map(|t| (t.at.x - c4.x).hypot(t.at.y - c4.y));
        let best = near.fold(f64::MAX, f64::min);
        assert!(
            best < 1.0,
            "frame {f}: nearest fingertip {best:.2} squares from c4's centre"
        );
        // The occluder keeps seeing the still hand (it must not learn it as board).
        assert!(
            hands.iter().any(|t| t.source != HandSource::Landmarks),
            "frame {f}: the occluder lost the resting hand"
        );
    }
}

#[test]
fn still_frames_have_no_hand() {
    // Still window after Nc6 (the knight just moved to c6 stays a piece) and after the game.
    let seen = frames_with_hands((109..=143).chain([300]));
    assert!(seen.is_empty(), "hands reported on still frames {seen:?}");
}

#[test]
fn a_piece_just_placed_at_the_picture_edge_is_not_a_hand() {
    // The queen lands on h5 (81), beside the picture's top edge; the hand is gone by 85.
    let seen = frames_with_hands(85..=87);
    assert!(
        seen.is_empty(),
        "the queen on h5 was taken for a hand in frames {seen:?}"
    );
}

#[test]
fn moving_shadows_are_not_hands() {
    // A large body shadow over Black's side (20-26), an arm's shadow before the arm (216-217),
    // moving shadows and exposure flicker after the game (285-302).
    let seen = frames_with_hands((20..=26).chain(216..=217).chain(285..=302));
    assert!(seen.is_empty(), "shadows taken for hands in frames {seen:?}");
}

fn detector() -> HandDetector {
    HandDetector::new(&root().join("models/hands"), HandOptions::default()).expect("hand models load")
}

#[test]
fn a_missing_model_is_a_clear_error() {
    let err = HandDetector::new(Path::new("/nonexistent/models"), HandOptions::default())
        .err()
        .expect("must fail");
    let msg = err.to_string();
    assert!(
        msg.contains("does not exist") && msg.contains("palm_detection_full.onnx"),
        "{msg}"
    );
}

#[test]
fn a_model_with_the_wrong_input_size_is_a_clear_error() {
    // The landmark model (224x224 input) where the palm detector (192x192) belongs.
    let dir = std::env::temp_dir().join(format!("arbiter-hands-wrong-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let landmark = root().join("models/hands/hand_landmark_full.onnx");
    std::fs::copy(&landmark, dir.join("palm_detection_full.onnx")).unwrap();
    std::fs::copy(&landmark, dir.join("hand_landmark_full.onnx")).unwrap();
    let err = HandDetector::new(&dir, HandOptions::default())
        .err()
        .expect("must fail");
    let msg = err.to_string();
    std::fs::remove_dir_all(&dir).ok();
    assert!(msg.contains("does not fit") && msg.contains("192"), "{msg}");
}

#[test]
fn an_empty_or_grey_frame_is_a_clear_error() {
    let mut det = detector();
    let err = det.detect(&Mat::default(), 0.0, 0, None).unwrap_err();
    assert!(matches!(err, HandsError::EmptyFrame), "{err}");
    let grey = Mat::new_rows_cols_with_default(480, 640, CV_8UC1, Scalar::all(0.0)).unwrap();
    let err = det.detect(&grey, 0.0, 0, None).unwrap_err();
    assert!(matches!(err, HandsError::FrameType(_)), "{err}");
}

#[test]
fn a_frame_of_another_size_than_the_calibration_is_a_clear_error() {
    let mut det = detector();
    let frame = Mat::new_rows_cols_with_default(240, 320, opencv::core::CV_8UC3, Scalar::all(90.0)).unwrap();
    let err = det.detect(&frame, 0.0, 0, Some(&calibration())).unwrap_err();
    assert!(
        err.to_string().contains("320x240") && err.to_string().contains("640x480"),
        "{err}"
    );
}
