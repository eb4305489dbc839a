//! Alert latency, boards per machine and memory per board of `arbiter serve` on the real clip.
//!
//! ```sh
//! . scripts/setup
//! cargo bench --bench serve_latency -- --boards 1     # then 2, 3, ... until latency or dropped frames break
//! ```
//!
//! Starts the real `arbiter serve` with N boards, each playing `tests/footage/scholarsmate.avi` at its own frame
//! rate (as a camera would deliver it), follows every board's SSE stream from a client, and reports, over every
//! ruling: latency = (time the SSE event reached the client) - (time the frame that completed the ruling's
//! evidence was due from the source: the board's start + that frame's time in the clip; the frame is the one
//! whose processing made the tracker give the event that caused the ruling, `seen_t` in the log); p50, p95, max. Also the peak resident memory of
//! the process (VmHWM) and per board, frames processed and skipped, and the wall time against the clip's length.
//! The start is taken just before the pipeline opens the source, so the figure is an upper bound (it includes
//! the source's opening).

#[path = "../tests/serve_support/mod.rs"]
mod serve_support;

use std::time::{Duration, Instant};

use serde_json::Value;
use serve_support::*;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn rss_kb(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn main() {
    let n: usize = arg("--boards").and_then(|s| s.parse().ok()).unwrap_or(1);
    let root = repo();
    let clip = root.join("tests/footage/scholarsmate.avi");
    assert!(clip.exists(), "{} is missing", clip.display());
    let cal = root.join("calibration/scholarsmate.toml");
    let data = temp(&format!("bench-{n}"));
    let mut args: Vec<String> = vec!["--data".into(), data.display().to_string()];
    for i in 1..=n {
        args.extend(["--board".into(), format!("b{i}={}", clip.display())]);
        args.extend(["--calibration".into(), format!("b{i}={}", cal.display())]);
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let started = Instant::now();
    let server = serve(&refs);
    let pid = server.child.id();
    // One SSE client per board, noting when each ruling arrives.
    let clients: Vec<_> = (1..=n)
        .map(|i| {
            let addr = server.addr.clone();
            std::thread::spawn(move || {
                let mut arrivals = Vec::new();
                // Source time at which each event's evidence was complete, by record number.
                let mut seen = std::collections::HashMap::new();
                sse(&addr, &format!("/api/boards/b{i}/stream"), None, |m| {
                    let v: Value = serde_json::from_str(&m.data).unwrap_or(Value::Null);
                    if m.event == "event" {
                        let t = v["seen_t"].as_f64().or(v["event"]["t"].as_f64()).unwrap_or(0.0);
                        seen.insert(v["seq"].as_u64().unwrap_or(0), t);
                    } else if m.event == "ruling" {
                        let cause = v["cause"].as_u64().unwrap_or(0);
                        let t = seen.get(&cause).copied().or(v["ruling"]["t"].as_f64()).unwrap_or(0.0);
                        arrivals.push((serve_support_now_ms(), t));
                    }
                    m.event == "end" || (m.event == "status" && m.data.contains("\"error\""))
                });
                arrivals
            })
        })
        .collect();
    let mut peak_rss = 0;
    while !clients.iter().all(|c| c.is_finished()) {
        peak_rss = peak_rss.max(rss_kb(pid, "VmRSS:"));
        std::thread::sleep(Duration::from_millis(200));
    }
    let wall = started.elapsed().as_secs_f64();
    peak_rss = peak_rss.max(rss_kb(pid, "VmHWM:"));
    let boards = get_json(&format!("{}/api/boards", server.base));
    let (_, metrics) = get(&format!("{}/metrics", server.base));
    let mut latencies = Vec::new();
    for (i, c) in clients.into_iter().enumerate() {
        let b = &boards[i];
        assert_eq!(b["status"], "ended", "board {i}: {b}");
        let start = b["source_started_ms"].as_u64().unwrap() as f64;
        for (at, t) in c.join().unwrap() {
            latencies.push((at as f64 - (start + t * 1000.0)) / 1000.0);
        }
    }
    latencies.sort_by(|a, b| a.total_cmp(b));
    let counter = |name: &str| -> u64 {
        metrics
            .lines()
            .filter(|l| l.starts_with(name))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .sum()
    };
    let out = serde_json::json!({
        "boards": n,
        "clip": clip.display().to_string(),
        "rulings": latencies.len(),
        "latency_p50_ms": (percentile(&latencies, 0.5) * 1000.0).round(),
        "latency_p95_ms": (percentile(&latencies, 0.95) * 1000.0).round(),
        "latency_max_ms": (latencies.last().copied().unwrap_or(f64::NAN) * 1000.0).round(),
        "frames_in": counter("arbiter_frames_in_total"),
        "frames_skipped": counter("arbiter_frames_dropped_total"),
        "peak_rss_mb": peak_rss / 1024,
        "peak_rss_per_board_mb": peak_rss / 1024 / n as u64,
        "wall_s": (wall * 10.0).round() / 10.0,
        "moves": boards.as_array().unwrap().iter().map(|b| b["moves"].clone()).collect::<Vec<_>>(),
    });
    println!("{}", serde_json::to_string_pretty(&out).unwrap());
}

fn serve_support_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}
