//! The piece reader on real footage: every settled frame of scholarsmate.avi must be
//! read right (colour of every square), with the per-board adaptation fitted on the
//! clip's first settled frame (the verified start position) only. Also: a missing or
//! incompatible model file gives a clear error.
#![cfg(feature = "vision")]

use std::path::{Path, PathBuf};

use opencv::core::Mat;
use opencv::prelude::*;
use opencv::videoio;

use arbiter::calibration::Calibration;
use arbiter::calibration::rectify::Rectifier;
use arbiter::geometry::RectifiedView;
use arbiter::vision::onnx::ModelError;
use arbiter::vision::pieces::measure::{Tally, settled_frames};
use arbiter::vision::pieces::{
    ConfirmedPlacement, DEFAULT_MODEL, PieceReader, PiecesError, probs_of, settled_board_strings,
};

const FOOTAGE: &str = "../shared/footage/real";

fn footage(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(FOOTAGE).join(name);
    assert!(
        p.exists(),
        "real footage {} not found: the tests need ../shared/footage/real beside the repository",
        p.display()
    );
    p
}

fn read_video(path: &Path) -> Vec<Mat> {
    let mut cap = videoio::VideoCapture::from_file(path, videoio::CAP_ANY).expect("open video");
    let mut frames = Vec::new();
    loop {
        let mut m = Mat::default();
        if !cap.read(&mut m).expect("read frame") || m.empty() {
            break;
        }
        frames.push(m);
    }
    frames
}

fn model() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(DEFAULT_MODEL)
}

#[test]
fn reads_every_settled_frame_of_scholarsmate_with_adaptation_from_the_first() {
    let frames = read_video(&footage("scholarsmate.avi"));
    let settled = settled_frames(&footage("scholarsmate.truth.json")).expect("truth file");
    let cal = Calibration::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("calibration/scholarsmate.toml")).unwrap();
    let rectifier = Rectifier::new(&cal, RectifiedView::STANDARD).unwrap();
    let mut reader = PieceReader::new(&model()).expect("piece model loads");

    let (first, start) = settled[0].clone();
    let reading = reader
        .read(&rectifier.rectify(&frames[first as usize]).unwrap())
        .unwrap();
    let report = reader.adapt(&reading, &ConfirmedPlacement::game_start(start));
    eprintln!("adaptation: {report:?}");

    let mut plain = Tally::default();
    let mut adapted = Tally::default();
    let mut wrong = Vec::new();
    for (frame, board) in &settled {
        let reading = reader
            .read(&rectifier.rectify(&frames[*frame as usize]).unwrap())
            .unwrap();
        plain.add(*frame, &reading.plain, board);
        adapted.add(*frame, &reading.probs, board);
        // the `colors` string the engine gets is the truth's
        let (colors, _) = settled_board_strings(&reading.probs);
        let (want, _) = settled_board_strings(&probs_of(board));
        if colors != want {
            wrong.push(format!("frame {frame}: read {colors}, truth {want}"));
        }
    }
    eprintln!("plain:\n{}\nadapted:\n{}", plain.summary(), adapted.summary());
    assert!(
        wrong.is_empty(),
        "{} of {} settled frames read wrong:\n{}\n{}",
        wrong.len(),
        settled.len(),
        wrong.join("\n"),
        adapted.summary()
    );
}

#[test]
fn a_missing_model_file_says_so() {
    match PieceReader::new(Path::new("models/pieces/no-such-model.onnx")) {
        Err(PiecesError::Model(ModelError::Missing(p))) => assert!(p.ends_with("no-such-model.onnx")),
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a missing model loaded"),
    }
}

#[test]
fn a_file_that_is_not_a_model_gives_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("arbiter-pieces-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bogus = dir.join("bogus.onnx");
    std::fs::write(&bogus, b"this is not an onnx model").unwrap();
    let err = PieceReader::new(&bogus).err().expect("a bogus model must not load");
    let text = err.to_string();
    assert!(text.contains("bogus.onnx"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
