//! `arbiter review` end to end on real footage, as a user runs it (automatic
//! calibration, the report folder), scored by the same rules as the team's
//! `shared/tools/score.py`: the moves exactly, each ply's first touch on the moved
//! piece within the truth's frames, no false violation, the game ended by mate.
//! Then the same clip re-encoded at half the frame rate, at a quarter of the pixels,
//! and cropped so the board fills the picture: the same game must come out.
#![cfg(feature = "vision")]

mod footage_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn shared() -> PathBuf {
    footage_support::footage("scholarsmate.avi")
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| l.trim_start().starts_with('{'))
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// Runs `arbiter review VIDEO --out DIR` and returns (events, rulings).
fn review(video: &Path, out: &Path) -> (Vec<Value>, Vec<Value>) {
    let run = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("review")
        .arg(video)
        .arg("--out")
        .arg(out)
        .output()
        .expect("arbiter runs");
    assert!(
        run.status.success(),
        "review failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report = String::from_utf8_lossy(&run.stdout);
    assert!(
        report.trim().ends_with("report.html"),
        "prints where the report is: {report}"
    );
    (lines(&out.join("events.jsonl")), lines(&out.join("rulings.jsonl")))
}

fn moves(rulings: &[Value]) -> Vec<String> {
    rulings
        .iter()
        .filter(|r| r["kind"] == "move")
        .map(|r| r["san"].as_str().unwrap_or("").trim_end_matches(['+', '#']).to_string())
        .collect()
}

fn violations(rulings: &[Value]) -> Vec<&Value> {
    rulings
        .iter()
        .filter(|r| r["kind"] == "touch-move" || r["kind"] == "illegal-move")
        .collect()
}

fn ends_in_mate(rulings: &[Value]) -> bool {
    rulings
        .iter()
        .any(|r| r["kind"] == "game-end" && r["reason"] == "checkmate" && r["stands"] == true)
}

fn want_moves(truth: &Value) -> Vec<String> {
    truth["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].as_str().unwrap().trim_end_matches(['+', '#']).to_string())
        .collect()
}

fn range(m: &Value, key: &str) -> Option<(i64, i64)> {
    let r = m.get(key)?.as_array()?;
    Some((r.first()?.as_i64()?, r.get(1)?.as_i64()?))
}

/// score.py's first-touch rule, per ply: the first `touch` by the mover from three
/// frames before the hand arrives until the piece is placed, on the truly first
/// touched square, within three frames of the truth's range. (The truth gives the
/// capture's placement as `queen_released_range`; score.py reads only
/// `place_range`, so here the last of the ply's ranges stands for it.)
fn first_touches_right(truth: &Value, events: &[Value]) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for m in truth["moves"].as_array().unwrap() {
        let (arrive, _) = range(m, "hand_over_board_frames").unwrap();
        let placed = range(m, "place_range")
            .or_else(|| {
                ["queen_released_range", "captured_pawn_lifted_range"]
                    .iter()
                    .filter_map(|k| range(m, k))
                    .max_by_key(|r| r.1)
            })
            .unwrap()
            .1;
        let (lo, hi) = range(m, "first_touch_range").unwrap();
        let player = m["player"].as_str().unwrap().to_lowercase();
        let want = m
            .get("first_touch_square")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| m["uci"].as_str().unwrap()[..2].to_string());
        let first = events.iter().find(|e| {
            let f = e["frame"].as_i64().unwrap_or(-1);
            e["type"] == "touch" && e["by"] == player.as_str() && (arrive - 3..=placed).contains(&f)
        });
        let ok = first.is_some_and(|e| {
            let f = e["frame"].as_i64().unwrap_or(-1);
            e["square"] == want.as_str() && (lo - 3..=hi + 3).contains(&f)
        });
        let got = first
            .map(|e| format!("{}@{}", e["square"], e["frame"]))
            .unwrap_or("-".into());
        out.push((format!("{}:{got}", m["san"].as_str().unwrap()), ok));
    }
    out
}

fn tmp(name: &str) -> PathBuf {
    footage_support::temp_dir("review", name)
}

#[test]
fn the_real_clip_gives_the_game_its_first_touches_and_no_false_violation() {
    let dir = shared();
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("scholarsmate.truth.json")).unwrap()).unwrap();
    let out = tmp("clip");
    let (events, rulings) = review(&dir.join("scholarsmate.avi"), &out);
    assert_eq!(moves(&rulings), want_moves(&truth));
    let touches = first_touches_right(&truth, &events);
    assert!(touches.iter().all(|(_, ok)| *ok), "first touches: {touches:?}");
    assert!(
        violations(&rulings).is_empty(),
        "false violations: {:?}",
        violations(&rulings)
    );
    assert!(ends_in_mate(&rulings));
    // The report shows the evidence and the score.
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        page.contains("Qxf7#") && page.contains("evidence/f"),
        "report without the game or evidence"
    );
    let pgn = std::fs::read_to_string(out.join("game.pgn")).unwrap();
    assert!(pgn.contains("4. Qxf7#") && pgn.contains("[Result \"1-0\"]"), "{pgn}");
    let _ = std::fs::remove_dir_all(out);
}

/// Re-encodes the clip with ffmpeg (`filter`), reviews it with automatic calibration.
fn same_game_after(name: &str, filter: &str, rate: Option<&str>) {
    let dir = shared();
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("scholarsmate.truth.json")).unwrap()).unwrap();
    let out = tmp(name);
    let video = out.join(format!("{name}.avi"));
    let mut ff = Command::new("ffmpeg");
    ff.args(["-loglevel", "error", "-y", "-i"])
        .arg(dir.join("scholarsmate.avi"))
        .args(["-vf", filter]);
    if let Some(r) = rate {
        ff.args(["-r", r]);
    }
    let status = ff
        .args(["-c:v", "mjpeg", "-q:v", "3"])
        .arg(&video)
        .status()
        .expect("ffmpeg (scripts/setup installs it)");
    assert!(status.success(), "ffmpeg failed");
    let (_, rulings) = review(&video, &out.join("review"));
    assert_eq!(moves(&rulings), want_moves(&truth), "{name}");
    assert!(
        violations(&rulings).is_empty(),
        "{name}: false violations {:?}",
        violations(&rulings)
    );
    assert!(ends_in_mate(&rulings), "{name}: no mate");
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn the_same_game_at_half_the_frame_rate() {
    same_game_after("half-rate", "select=not(mod(n\\,2)),setpts=N/(10*TB)", Some("10"));
}

#[test]
fn the_same_game_at_a_lower_resolution() {
    same_game_after("low-res", "scale=320:240", None);
}

#[test]
fn the_same_game_cropped_so_the_board_fills_the_picture() {
    // The truth's corners are (140,5) (506,10) (507,377) (137,374): this crop leaves
    // the board's outer corners just outside or on the picture's border.
    same_game_after("cropped", "crop=374:374:135:3", None);
}
