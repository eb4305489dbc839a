//! `/metrics` in the Prometheus text format: frames in and dropped, alert latency, rulings by kind, reconnects.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;

/// A counter per label value.
#[derive(Default)]
pub struct Counter(Mutex<BTreeMap<String, u64>>);

impl Counter {
    pub fn inc(&self, label: &str) {
        self.add(label, 1);
    }
    pub fn add(&self, label: &str, n: u64) {
        let mut m = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *m.entry(label.to_string()).or_default() += n;
    }
    fn write(&self, out: &mut String, name: &str, help: &str, label: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
        let m = self.0.lock().unwrap_or_else(|p| p.into_inner());
        for (value, n) in m.iter() {
            let _ = writeln!(
                out,
                "{name}{{{label}=\"{}\"}} {n}",
                value.replace(['"', '\\', '\n'], "_")
            );
        }
    }
}

/// Upper bounds (seconds) of the latency histogram's buckets.
const BUCKETS: [f64; 10] = [0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

#[derive(Default)]
pub struct Histogram(Mutex<(Vec<u64>, u64, f64)>);

impl Histogram {
    pub fn observe(&self, seconds: f64) {
        let mut h = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if h.0.is_empty() {
            h.0 = vec![0; BUCKETS.len()];
        }
        for (i, b) in BUCKETS.iter().enumerate() {
            if seconds <= *b {
                h.0[i] += 1;
            }
        }
        h.1 += 1;
        h.2 += seconds;
    }
    fn write(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        let h = self.0.lock().unwrap_or_else(|p| p.into_inner());
        for (i, b) in BUCKETS.iter().enumerate() {
            let _ = writeln!(out, "{name}_bucket{{le=\"{b}\"}} {}", h.0.get(i).copied().unwrap_or(0));
        }
        let _ = writeln!(
            out,
            "{name}_bucket{{le=\"+Inf\"}} {}\n{name}_sum {}\n{name}_count {}",
            h.1, h.2, h.1
        );
    }
}

/// Everything `/metrics` shows.
#[derive(Default)]
pub struct Metrics {
    pub frames_in: Counter,
    pub frames_dropped: Counter,
    pub rulings: Counter,
    pub reconnects: Counter,
    /// From the time the ruling's evidence frame was due from the source to the ruling being announced.
    pub latency: Histogram,
    pub http_errors: Counter,
    /// Records a hub received again (deduplicated by board and number).
    pub duplicates: Counter,
}

impl Metrics {
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.frames_in.write(
            &mut out,
            "arbiter_frames_in_total",
            "Frames processed, per board.",
            "board",
        );
        self.frames_dropped.write(
            &mut out,
            "arbiter_frames_dropped_total",
            "Frames skipped between two processed ones, per board.",
            "board",
        );
        self.rulings
            .write(&mut out, "arbiter_rulings_total", "Rulings announced, by kind.", "kind");
        self.reconnects.write(
            &mut out,
            "arbiter_camera_reconnects_total",
            "Source reconnection attempts.",
            "board",
        );
        self.http_errors.write(
            &mut out,
            "arbiter_http_client_errors_total",
            "Requests answered 4xx.",
            "status",
        );
        self.duplicates.write(
            &mut out,
            "arbiter_hub_duplicate_records_total",
            "Records received twice by the hub and applied once.",
            "board",
        );
        self.latency.write(
            &mut out,
            "arbiter_ruling_latency_seconds",
            "From the evidence frame's time at the source to the ruling being announced.",
        );
        out
    }
}
