//! `arbiter hands` end to end on the first frames of the real clip, and its errors.
#![cfg(feature = "vision")]

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn arbiter() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    c.current_dir(root());
    c
}

#[test]
fn prints_one_json_line_per_frame_and_draws_pngs() {
    let clip = root().join("../shared/footage/real/scholarsmate.avi");
    assert!(
        clip.exists(),
        "missing {}: this test needs the real clip (../shared beside the repository)",
        clip.display()
    );
    let out = std::env::temp_dir().join(format!("arbiter-hands-cli-{}", std::process::id()));
    let run = arbiter()
        .args([
            "hands",
            "../shared/footage/real/scholarsmate.avi",
            "--calibration",
            "calibration/scholarsmate.toml",
        ])
        .args(["--frames", "40", "--out"])
        .arg(&out)
        .output()
        .expect("run arbiter");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let text = String::from_utf8(run.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 40);
    assert_eq!(lines[35]["frame"], 35);
    assert!((lines[35]["t"].as_f64().unwrap() - 1.75).abs() < 1e-9);
    // Frame 35: White's hand on e2 (truth file, ply 1).
    let hand = &lines[35]["hands"][0];
    for key in ["score", "box", "keypoints", "tips", "entry", "source"] {
        assert!(hand.get(key).is_some(), "no `{key}` in {hand}");
    }
    assert_eq!(hand["box"].as_array().unwrap().len(), 4);
    assert!(["left", "right", "top", "bottom"].contains(&hand["entry"].as_str().unwrap()));
    assert!(["landmarks", "occluder", "both"].contains(&hand["source"].as_str().unwrap()));
    assert!(
        hand["tips"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.as_array().unwrap().len() == 3)
    );
    assert!(out.join("000035.png").exists());
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn a_missing_video_or_a_bad_threshold_is_a_clear_error() {
    let run = arbiter().args(["hands", "/nonexistent/clip.avi"]).output().unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("does not exist"));
    let run = arbiter()
        .args([
            "hands",
            "../shared/footage/real/scholarsmate.avi",
            "--min-presence",
            "1.5",
        ])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("between 0 and 1"));
}
