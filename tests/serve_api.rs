//! `arbiter serve` with replayed event streams, through real HTTP: boards, rulings, SSE with resume, claims,
//! corrections, acknowledgements, PGN, metrics, bad requests and the token.
#![cfg(feature = "serve")]

mod serve_support;

use serde_json::Value;
use serve_support::*;

fn events(name: &str) -> String {
    repo().join("tests/events").join(name).display().to_string()
}

#[test]
fn replayed_boards_give_the_engines_rulings_pgn_and_metrics() {
    let data = temp("replay");
    let mate = events("real_scholarsmate_truth.jsonl");
    let touch = events("art_4_3_1_first_touched_own_piece.jsonl");
    let s = serve(&[
        "--data",
        data.to_str().unwrap(),
        "--as-fast-as-possible",
        "--board",
        &format!("mate=events:{mate}"),
        "--board",
        &format!("touch=events:{touch}"),
    ]);
    let list = get_json(&format!("{}/api/boards", s.base));
    assert_eq!(list.as_array().unwrap().len(), 2);
    for (id, file) in [("mate", &mate), ("touch", &touch)] {
        let b = wait_status(&s.base, id, "ended", 60);
        let got = without_id(
            get_json(&format!("{}/api/boards/{id}/rulings", s.base))
                .as_array()
                .unwrap()
                .clone(),
        );
        let want = reference_rulings(std::path::Path::new(file), arbiter::rules::Config::default());
        assert_eq!(got, want, "board {id}");
        assert!(b["fen"].as_str().unwrap().contains('/'));
    }
    let touch = board(&s.base, "touch");
    let alert = &touch["open_alerts"][0];
    assert_eq!(alert["ruling"]["kind"], "touch-move", "{touch}");
    assert_eq!(
        board(&s.base, "mate")["moves"].as_array().unwrap().last().unwrap(),
        "Qxf7#"
    );
    let (code, pgn) = get(&format!("{}/round.pgn", s.base));
    assert_eq!(code, 200);
    assert!(
        pgn.contains("Qxf7#") && pgn.contains("1-0") && pgn.contains("[Site \"touch\"]"),
        "{pgn}"
    );
    let (_, one) = get(&format!("{}/api/boards/mate/game.pgn", s.base));
    assert!(one.contains("1. e4") && !one.contains("[Site \"touch\"]"), "{one}");
    // Acknowledging the alert is recorded with its time, and it leaves the open alerts.
    let id = alert["id"].as_u64().unwrap();
    let (code, ack) = post(
        &format!("{}/api/boards/touch/alerts/{id}/ack", s.base),
        r#"{"by":"arbiter A"}"#,
    );
    assert_eq!(code, 201, "{ack}");
    let touch = board(&s.base, "touch");
    assert!(touch["open_alerts"].as_array().unwrap().is_empty());
    assert!(touch["alerts"][0]["acknowledged"]["at_ms"].as_u64().unwrap() > 0);
    let (_, metrics) = get(&format!("{}/metrics", s.base));
    assert!(
        metrics.contains("arbiter_rulings_total{kind=\"touch-move\"} 1"),
        "{metrics}"
    );
    assert!(metrics.contains("arbiter_ruling_latency_seconds_count"), "{metrics}");
}

#[test]
fn the_stream_resumes_after_last_event_id_without_a_gap() {
    let mate = events("real_scholarsmate_truth.jsonl");
    let s = serve_replay("sse", &mate);
    let last = wait_status(&s.base, "b", "ended", 60)["last_id"].as_u64().unwrap();
    let until_end = |m: &SseMsg| m.event == "end";
    let all = sse(&s.addr, "/api/boards/b/stream", None, until_end);
    let ids: Vec<u64> = all.iter().filter_map(|m| m.id).collect();
    assert_eq!(ids, (1..=last).collect::<Vec<_>>(), "every record once, in order");
    assert_eq!(all[0].event, "status");
    // A client that saw up to record 10 gets exactly 11.. after reconnecting.
    let resumed = sse(&s.addr, "/api/boards/b/stream", Some(10), until_end);
    let ids: Vec<u64> = resumed.iter().filter_map(|m| m.id).collect();
    assert_eq!(ids, (11..=last).collect::<Vec<_>>());
    let rulings: Vec<Value> = resumed
        .iter()
        .filter(|m| m.event == "ruling")
        .map(|m| serde_json::from_str::<Value>(&m.data).unwrap())
        .collect();
    assert!(rulings.iter().any(|r| r["ruling"]["kind"] == "game-end"));
    assert!(rulings.iter().all(|r| r["summary"].is_string()));
}

#[test]
fn claims_adjustments_and_corrections_are_part_of_the_game() {
    let data = temp("claims");
    let dir = temp("claims-src");
    // e4 released and completed by Black's touch; then Black's move is pending a long time (the board stays live).
    let stream = write(
        &dir,
        "live.jsonl",
        concat!(
            r#"{"t":0.0,"frame":1,"type":"board","placement":"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"}"#,
            "\n",
            r#"{"t":0.1,"frame":2,"type":"touch","by":"black","square":"e7"}"#,
            "\n",
            r#"{"t":0.2,"frame":3,"type":"board","placement":"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"}"#,
            "\n",
            r#"{"t":0.3,"frame":4,"type":"board","placement":"rnbqkbnr/pppp1ppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"}"#,
            "\n",
            r#"{"t":0.4,"frame":5,"type":"board","placement":"rnbqkbnr/pppp1ppp/8/8/4Q3/8/PPPP1PPP/RNBQKBNR"}"#,
            "\n",
            r#"{"t":600.0,"frame":6,"type":"touch","by":"white","square":"g1"}"#,
            "\n"
        ),
    );
    let s = serve(&[
        "--data",
        data.to_str().unwrap(),
        "--board",
        &format!("b=events:{}", stream.display()),
    ]);
    // The last board cannot be explained by any legal continuation: the board waits for the arbiter.
    let b = wait_status(&s.base, "b", "needs-attention", 30);
    assert_eq!(
        b["alerts"].as_array().unwrap().last().unwrap()["ruling"]["kind"],
        "unexplained-board",
        "{b}"
    );
    let (code, out) = post(
        &format!("{}/api/boards/b/claims", s.base),
        r#"{"by":"white","about":"touch-move"}"#,
    );
    assert_eq!(code, 201, "{out}");
    let recs = out["records"].as_array().unwrap();
    assert_eq!(recs[0]["type"], "event");
    assert_eq!(recs[0]["origin"], "arbiter");
    assert_eq!(recs[0]["event"]["type"], "claim");
    assert!(
        recs.iter()
            .any(|r| r["type"] == "ruling" && r["ruling"]["kind"] == "claim"),
        "{out}"
    );
    let (code, out) = post(&format!("{}/api/boards/b/adjust", s.base), r#"{"by":"black"}"#);
    assert_eq!(code, 201, "{out}");
    let evs = get_json(&format!("{}/api/boards/b/events", s.base));
    assert!(
        evs.as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "adjust" && e["origin"] == "arbiter")
    );
    // The arbiter says the first move was d4: the game is recomputed, the camera's view kept.
    let (code, out) = post(
        &format!("{}/api/boards/b/corrections", s.base),
        r#"{"ply":1,"san":"d4"}"#,
    );
    assert_eq!(code, 201, "{out}");
    let b = board(&s.base, "b");
    assert_eq!(b["moves"][0], "d4");
    assert_eq!(b["camera_moves"][0], "e4");
    assert_eq!(b["corrected"], true);
    // A correction that does not apply is refused with the reason, and changes nothing.
    let (code, out) = post(
        &format!("{}/api/boards/b/corrections", s.base),
        r#"{"ply":1,"san":"Ke2"}"#,
    );
    assert_eq!(code, 400);
    assert!(out["error"].as_str().unwrap().contains("Ke2"), "{out}");
    // Setting the position after move 2 (the camera's e4 e5) resumes the board.
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    let (code, out) = post(
        &format!("{}/api/boards/b/corrections", s.base),
        &format!(r#"{{"ply":0,"fen":"{fen}"}}"#),
    );
    assert_eq!(code, 201, "{out}");
    let b = wait_status(&s.base, "b", "live", 10);
    assert_eq!(b["fen"], fen);
    let log = std::fs::read_to_string(data.join("b/log.jsonl")).unwrap();
    assert_eq!(
        log.matches(r#""type":"correction""#).count(),
        2,
        "corrections are kept in the log"
    );
}

#[test]
fn bad_requests_get_a_4xx_with_a_message() {
    let touch = events("art_4_3_1_first_touched_own_piece.jsonl");
    let s = serve_replay("bad", &touch);
    let cases: Vec<(&str, String, u16, &str)> = vec![
        ("/api/boards/b/claims", "{not json".into(), 400, "not valid JSON"),
        ("/api/boards/b/claims", "[1,2]".into(), 400, "JSON object"),
        (
            "/api/boards/b/claims",
            r#"{"by":"green","about":"touch-move"}"#.into(),
            400,
            "by",
        ),
        (
            "/api/boards/nope/claims",
            r#"{"by":"white","about":"touch-move"}"#.into(),
            404,
            "nope",
        ),
        (
            "/api/boards/b/claims",
            format!(r#"{{"by":"{}"}}"#, "x".repeat(100_000)),
            413,
            "",
        ),
        (
            "/api/boards/b/corrections",
            r#"{"ply":"one"}"#.into(),
            400,
            "correction",
        ),
        (
            "/api/boards/b/corrections",
            r#"{"ply":40,"san":"e4"}"#.into(),
            400,
            "no move 40",
        ),
        ("/api/boards/b/alerts/999/ack", "".into(), 404, "999"),
        ("/api/boards/b/alerts/x/ack", "".into(), 400, "not a ruling number"),
    ];
    for (path, body, code, text) in cases {
        let (got, out) = post(&format!("{}{path}", s.base), &body);
        assert_eq!(got, code, "{path} {}: {out}", &body[..body.len().min(40)]);
        assert!(out.to_string().contains(text), "{path}: {out}");
    }
    for (path, code) in [
        ("/api/boards/nope", 404),
        ("/api/boards/b/evidence/1.jpg", 404),
        ("/nothing", 404),
    ] {
        let (got, out) = get(&format!("{}{path}", s.base));
        assert_eq!(got, code, "{path}: {out}");
        assert!(out.contains("error"), "{path}: {out}");
    }
    // Still serving after all that.
    assert_eq!(get(&format!("{}/api/boards", s.base)).0, 200);
}

#[test]
fn other_addresses_need_a_token_and_every_request_then_carries_it() {
    let data = temp("token");
    let touch = events("art_4_3_1_first_touched_own_piece.jsonl");
    let board = format!("b=events:{touch}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "serve",
            "--listen",
            "0.0.0.0:0",
            "--data",
            data.to_str().unwrap(),
            "--board",
            &board,
        ])
        .env_remove("ARBITER_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--token"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = serve(&[
        "--listen",
        "0.0.0.0:0",
        "--token",
        "s3cret",
        "--data",
        data.to_str().unwrap(),
        "--board",
        &board,
    ]);
    let port = s.addr.rsplit(':').next().unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let (code, body) = get(&format!("{base}/api/boards"));
    assert_eq!(code, 401, "{body}");
    assert!(body.contains("Bearer"));
    let ok = ureq::get(&format!("{base}/api/boards"))
        .set("Authorization", "Bearer s3cret")
        .call()
        .unwrap();
    assert_eq!(ok.status(), 200);
    let (code, _) = get(&format!("{base}/api/boards?token=s3cret"));
    assert_eq!(code, 200);
    let wrong = ureq::get(&format!("{base}/api/boards"))
        .set("Authorization", "Bearer nope")
        .call();
    assert!(matches!(wrong, Err(ureq::Error::Status(401, _))));
    // The page loads (it asks for the token itself).
    assert_eq!(get(&format!("{base}/")).0, 200);
}

#[test]
fn stalled_browsers_never_hold_up_a_board() {
    let dir = temp("stalled-src");
    let path = write(&dir, "long.jsonl", &long_game(200, 0.01));
    let s = serve_replay("stalled", &path.display().to_string());
    // Clients that open the stream and never read a byte.
    let stalled: Vec<std::net::TcpStream> = (0..3)
        .map(|_| {
            use std::io::Write;
            let mut c = std::net::TcpStream::connect(&s.addr).unwrap();
            write!(c, "GET /api/boards/b/stream HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
            c
        })
        .collect();
    wait_status(&s.base, "b", "ended", 60);
    let got = without_id(
        get_json(&format!("{}/api/boards/b/rulings", s.base))
            .as_array()
            .unwrap()
            .clone(),
    );
    assert_eq!(got, reference_rulings(&path, arbiter::rules::Config::default()));
    // A live client still gets the whole stream.
    let all = sse(&s.addr, "/api/boards/b/stream", None, |m| m.event == "end");
    assert_eq!(all.last().unwrap().event, "end");
    drop(stalled);
}
