//! Shared by the `rules_*` tests: run an event stream from `tests/events/` and compare the rulings with the
//! expected ones beside it. `<case>.jsonl` is the stream, `<case>.expected.jsonl` one object per expected ruling
//! (every field it names must match; fields it leaves out are not checked), `<case>.args` the `arbiter rule`
//! flags, if any.

#![allow(dead_code)]

use std::path::PathBuf;

use arbiter::rules::{Config, Engine, Event, Ruling, read_events};
use serde_json::Value;

pub fn events_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("events")
}

pub fn read_text(name: &str) -> String {
    let path = events_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The flags of `<case>.args` (empty when there is none).
pub fn case_args(case: &str) -> Vec<String> {
    let path = events_dir().join(format!("{case}.args"));
    std::fs::read_to_string(path)
        .map(|t| t.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// The same configuration `arbiter rule` builds from those flags.
pub fn config_from_args(args: &[String], events: &[Event]) -> Config {
    let mut config = Config::default();
    for pair in args.chunks(2) {
        let [flag, value] = pair else {
            panic!("flags come in pairs: {args:?}")
        };
        match flag.as_str() {
            "--laws" => config.laws = value.parse().expect("laws"),
            "--time-control" => config.time_control = value.parse().expect("time control"),
            "--supervised" => config.supervised = value.parse().expect("supervised"),
            "--variant" => config.variant = value.parse().expect("variant"),
            "--start" => config.start = Some(value.clone()),
            other => panic!("unknown flag {other}"),
        }
    }
    if let Some(arbiter::rules::EventKind::Start { fen }) = events.first().map(|e| &e.kind) {
        config.start = Some(fen.clone());
    }
    config
}

/// Runs a stream through the engine as `arbiter rule` does (push every event, then finish).
pub fn rule(events: &[Event], config: Config) -> (Engine, Vec<Ruling>) {
    let mut engine = Engine::new(config).expect("engine");
    let mut rulings = Vec::new();
    for event in events {
        rulings.extend(engine.push(event));
    }
    let (t, frame) = events.last().map_or((0.0, None), |e| (e.t, e.frame));
    rulings.extend(engine.finish(t, frame));
    (engine, rulings)
}

pub fn load_events(case: &str) -> Vec<Event> {
    let text = read_text(&format!("{case}.jsonl"));
    read_events(text.as_bytes()).unwrap_or_else(|e| panic!("{case}.jsonl: {e}"))
}

pub fn expected(case: &str) -> Vec<Value> {
    read_text(&format!("{case}.expected.jsonl"))
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("{case}.expected.jsonl line {}: {e}", i + 1)))
        .collect()
}

/// Every field of `want` equals the same field of `got`.
pub fn matches(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => w.iter().all(|(k, wv)| g.get(k).is_some_and(|gv| matches(gv, wv))),
        (Value::Number(g), Value::Number(w)) => g.as_f64() == w.as_f64(),
        _ => got == want,
    }
}

pub fn assert_rulings(case: &str, got: &[Value], want: &[Value]) {
    let show = |vs: &[Value]| vs.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("\n  ");
    let ok = got.len() == want.len() && got.iter().zip(want).all(|(g, w)| matches(g, w));
    assert!(
        ok,
        "case {case}: rulings differ\n got:\n  {}\n want (subset of fields):\n  {}",
        show(got),
        show(want)
    );
}

/// Runs `<case>.jsonl` through the library and checks the rulings against `<case>.expected.jsonl`.
pub fn check_case(case: &str) -> (Engine, Vec<Ruling>) {
    let events = load_events(case);
    let config = config_from_args(&case_args(case), &events);
    let (engine, rulings) = rule(&events, config);
    let got: Vec<Value> = rulings
        .iter()
        .map(|r| serde_json::to_value(r).expect("serialise"))
        .collect();
    assert_rulings(case, &got, &expected(case));
    (engine, rulings)
}

/// Every case in `tests/events/` (the names of the `.expected.jsonl` files).
pub fn all_cases() -> Vec<String> {
    let mut cases: Vec<String> = std::fs::read_dir(events_dir())
        .expect("tests/events")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".expected.jsonl").map(str::to_owned))
        .collect();
    cases.sort();
    cases
}
