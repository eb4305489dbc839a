//! Durability: `arbiter serve` killed with SIGKILL mid-game and started again with the same `--data` loses and
//! repeats nothing.
#![cfg(feature = "serve")]

mod serve_support;

use std::collections::HashSet;

use serde_json::Value;
use serve_support::*;

#[test]
fn a_kill_9_mid_game_loses_and_repeats_nothing() {
    let data = temp("kill9");
    let dir = temp("kill9-src");
    // About 200 half-moves, 4 events each, 10 ms apart: some 8 s of play.
    let path = write(&dir, "long.jsonl", &long_game(200, 0.01));
    let board = format!("g=events:{}", path.display());
    let args = ["--data", data.to_str().unwrap(), "--board", board.as_str()];
    let mut first = serve(&args);
    let moves_before = wait_for(60, "a few moves", || {
        let b = serve_support::board(&first.base, "g");
        let n = b["moves"].as_array().unwrap().len();
        (n >= 10).then_some(n)
    });
    kill9(&mut first.child);
    let second = serve(&args);
    let b = wait_status(&second.base, "g", "ended", 120);
    assert!(
        b["moves"].as_array().unwrap().len() > moves_before,
        "the game carried on after the restart"
    );
    // Every ruling the engine gives for the whole stream, each exactly once, in order.
    let got = without_id(
        get_json(&format!("{}/api/boards/g/rulings", second.base))
            .as_array()
            .unwrap()
            .clone(),
    );
    let want = reference_rulings(&path, arbiter::rules::Config::default());
    assert_eq!(got.len(), want.len(), "rulings lost or repeated");
    assert_eq!(got, want);
    // The log holds each source event once and numbers records without a gap.
    let log = std::fs::read_to_string(data.join("g/log.jsonl")).unwrap();
    let records: Vec<Value> = log.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let seqs: Vec<u64> = records.iter().map(|r| r["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    let events: Vec<&Value> = records.iter().filter(|r| r["type"] == "event").collect();
    let source_lines = std::fs::read_to_string(&path).unwrap().lines().count();
    assert_eq!(events.len(), source_lines, "each source event logged exactly once");
    let distinct: HashSet<String> = events.iter().map(|e| e["event"].to_string()).collect();
    assert_eq!(distinct.len(), source_lines);
}
