//! `arbiter serve` on pixels: the real clip through the whole pipeline (evidence frames served), and the faults a
//! playing hall brings (an unreadable source, a broken calibration, a camera that vanishes) hitting one board
//! while the others run.
#![cfg(all(feature = "vision", feature = "serve"))]

mod footage_support;
mod serve_support;

use std::io::Read;

use serve_support::*;

fn clip() -> std::path::PathBuf {
    let p = repo().join("tests/footage/scholarsmate.avi");
    assert!(p.exists(), "{} is missing (the bundled sample clip)", p.display());
    p
}

#[test]
fn the_real_clip_is_ruled_live_with_evidence_and_a_broken_board_does_not_stop_the_others() {
    let data = temp("pixels");
    let dir = temp("pixels-src");
    let broken = write(&dir, "broken.toml", "this is not a calibration");
    let cal = repo().join("calibration/scholarsmate.toml");
    let events = repo().join("tests/events/real_scholarsmate_truth.jsonl");
    let clip = clip();
    let s = serve(&[
        "--data",
        data.to_str().unwrap(),
        "--as-fast-as-possible",
        "--board",
        &format!("cam={}", clip.display()),
        "--calibration",
        &format!("cam={}", cal.display()),
        "--board",
        "gone=/nonexistent/camera.avi",
        "--calibration",
        &format!("gone={}", cal.display()),
        "--board",
        &format!("badcal={}", clip.display()),
        "--calibration",
        &format!("badcal={}", broken.display()),
        "--board",
        &format!("replay=events:{}", events.display()),
    ]);
    let gone = wait_status(&s.base, "gone", "error", 60);
    assert!(gone["reason"].as_str().unwrap().contains("nonexistent"), "{gone}");
    let badcal = wait_status(&s.base, "badcal", "error", 60);
    assert!(badcal["reason"].as_str().unwrap().contains("broken.toml"), "{badcal}");
    wait_status(&s.base, "replay", "ended", 60);
    let cam = wait_status(&s.base, "cam", "ended", 600);
    let moves = cam["moves"].as_array().unwrap();
    assert!(moves.len() >= 4, "the pipeline saw the game: {cam}");
    assert!(cam["frames"].as_u64().unwrap() > 200, "{cam}");
    // Alerts with frames have their evidence JPEG.
    let with_evidence: Vec<&serde_json::Value> = cam["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["ruling"]["frame"].is_u64())
        .collect();
    for a in with_evidence {
        let url = a["evidence"].as_str().expect("evidence URL for an alert with a frame");
        let r = ureq::get(&format!("{}{url}", s.base)).call().unwrap();
        assert_eq!(r.header("content-type"), Some("image/jpeg"));
        let mut jpeg = Vec::new();
        r.into_reader().read_to_end(&mut jpeg).unwrap();
        assert_eq!(&jpeg[..2], &[0xff, 0xd8]);
    }
    let (_, metrics) = get(&format!("{}/metrics", s.base));
    assert!(metrics.contains("arbiter_frames_in_total{board=\"cam\"}"), "{metrics}");
}

/// Serves the clip over HTTP, cut off after a third, to a few connections; then nothing listens.
fn vanishing_camera() -> String {
    let body = std::fs::read(clip()).unwrap();
    let cut = body.len() / 3;
    footage_support::flaky_server(body, cut, 4)
}

#[test]
fn a_camera_that_vanishes_shows_reconnecting_then_error_while_another_board_runs() {
    let data = temp("vanish");
    let cal = repo().join("calibration/scholarsmate.toml");
    let events = repo().join("tests/events/real_scholarsmate_truth.jsonl");
    let url = vanishing_camera();
    let s = serve(&[
        "--data",
        data.to_str().unwrap(),
        "--board",
        &format!("cam={url}"),
        "--calibration",
        &format!("cam={}", cal.display()),
        "--board",
        &format!("replay=events:{}", events.display()),
    ]);
    let seen = wait_status(&s.base, "cam", "reconnecting", 120);
    assert!(seen["reason"].as_str().unwrap().contains("reconnecting"), "{seen}");
    // The other board plays on meanwhile.
    let replay = board(&s.base, "replay");
    assert!(matches!(replay["status"].as_str(), Some("live" | "ended")), "{replay}");
    let lost = wait_status(&s.base, "cam", "error", 300);
    assert!(lost["reason"].as_str().unwrap().contains("lost"), "{lost}");
    assert_eq!(
        wait_status(&s.base, "replay", "ended", 60)["moves"]
            .as_array()
            .unwrap()
            .len(),
        7
    );
}

#[test]
fn a_video_board_killed_mid_game_carries_on_from_its_log_without_repeating_a_move() {
    let data = temp("pixels-kill9");
    let cal = repo().join("calibration/scholarsmate.toml");
    let board_arg = format!("cam={}", clip().display());
    let cal_arg = format!("cam={}", cal.display());
    let args = [
        "--data",
        data.to_str().unwrap(),
        "--board",
        board_arg.as_str(),
        "--calibration",
        cal_arg.as_str(),
    ];
    let mut first = serve(&args);
    // Played at its own frame rate: kill it once a couple of moves are in.
    wait_for(120, "two moves", || {
        (board(&first.base, "cam")["moves"].as_array().unwrap().len() >= 2).then_some(())
    });
    kill9(&mut first.child);
    let logged = std::fs::read_to_string(data.join("cam/log.jsonl")).unwrap();
    let before = logged.lines().filter(|l| l.contains(r#""kind":"move""#)).count();
    let second = serve(&args);
    let b = wait_status(&second.base, "cam", "ended", 300);
    let moves: Vec<String> = b["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    assert!(moves.len() > before, "the game carried on after the restart: {moves:?}");
    assert_eq!(
        moves,
        ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"],
        "each move once, in order"
    );
}
