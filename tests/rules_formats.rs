//! The event and ruling formats: malformed input gives an error naming the line (library and `arbiter rule`),
//! events and rulings round-trip through serde exactly as the issue writes them.

mod rules_support;

use std::io::Write;
use std::process::{Command, Stdio};

use arbiter::rules::{
    Acts, Config, Engine, Event, EventKind, Laws, ParseError, Ruling, TimeControl, Variant, parse_event_line,
    read_events,
};
use rules_support::{all_cases, assert_rulings, case_args, expected, read_text};
use serde_json::Value;

fn error_of(stream: &str) -> ParseError {
    read_events(stream.as_bytes()).expect_err("the stream is malformed")
}

#[test]
fn truncated_line_names_the_line() {
    let err = error_of("{\"t\":1,\"type\":\"clock\",\"by\":\"white\"}\n{\"t\":2,\"type\":\"touch\",\"by\":\"bla");
    assert_eq!(err.line, 2);
    assert!(err.to_string().starts_with("line 2: truncated JSON"), "{err}");
}

#[test]
fn bad_square_names_the_line_and_the_square() {
    let err = error_of("\n{\"t\":1,\"type\":\"touch\",\"by\":\"white\",\"square\":\"i9\"}\n");
    assert_eq!(err.line, 2, "blank lines still count");
    assert!(err.message.contains("bad square \"i9\""), "{err}");
    let upper = error_of("{\"t\":1,\"type\":\"lift\",\"by\":\"white\",\"square\":\"E2\"}");
    assert!(upper.message.contains("lowercase"), "{upper}");
}

#[test]
fn unknown_type_names_the_line_and_the_known_types() {
    let err = error_of("{\"t\":1,\"type\":\"clock\",\"by\":\"white\"}\n{\"t\":2,\"type\":\"resign\",\"by\":\"black\"}");
    assert_eq!(err.line, 2);
    assert!(
        err.message.contains("unknown event type `resign`") && err.message.contains("touch, lift"),
        "{err}"
    );
}

#[test]
fn missing_and_wrong_fields_say_what_was_expected() {
    let cases = [
        ("{\"type\":\"clock\",\"by\":\"white\"}", "missing field `t`"),
        ("{\"t\":1,\"type\":\"clock\"}", "`clock` needs `by`"),
        ("{\"t\":1,\"type\":\"clock\",\"by\":\"red\"}", "\"white\" or \"black\""),
        ("{\"t\":1,\"type\":\"board\"}", "`placement`"),
        (
            "{\"t\":1,\"type\":\"board\",\"placement\":\"8/8/8\"}",
            "bad `placement`",
        ),
        (
            "{\"t\":1,\"type\":\"board\",\"colors\":\"wwwwwwwww/8/8/8/8/8/8/8\"}",
            "longer than 8",
        ),
        ("{\"t\":1,\"type\":\"claim\",\"by\":\"black\"}", "`claim` needs `about`"),
        (
            "{\"t\":1,\"type\":\"start\",\"fen\":\"8/8/8/8/8/8/8/8 w - - 0 1\"}",
            "not a playable position",
        ),
        ("[1,2]", "line 7"),
        ("{\"t\":\"soon\",\"type\":\"clock\",\"by\":\"white\"}", "line 7"),
    ];
    for (text, wanted) in cases {
        let err = parse_event_line(text, 7).expect_err(text);
        assert!(err.to_string().contains(wanted), "{text}: {err}");
        assert_eq!(err.line, 7);
    }
}

#[test]
fn unknown_fields_are_ignored() {
    let event = parse_event_line(
        "{\"t\":1.5,\"frame\":45,\"type\":\"touch\",\"by\":\"white\",\"square\":\"g1\",\"hand\":\"left\"}",
        1,
    )
    .expect("valid");
    assert_eq!(event.frame, Some(45));
    assert!(matches!(event.kind, EventKind::Touch { .. }));
}

#[test]
fn events_round_trip_in_the_issue_format() {
    let lines = [
        r#"{"t":1.2,"type":"touch","by":"white","square":"g1"}"#,
        r#"{"t":1.3,"frame":39,"type":"lift","by":"white","square":"g1"}"#,
        r#"{"t":1.9,"type":"place","by":"white","square":"f3"}"#,
        r#"{"t":2.0,"type":"board","placement":"rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R"}"#,
        r#"{"t":2.1,"type":"board","colors":"bbbbbbbb/bbbbbbbb/8/8/8/5w2/wwwwwwww/wwwww1ww"}"#,
        r#"{"t":2.4,"type":"clock","by":"white"}"#,
        r#"{"t":2.3,"type":"two-hands","by":"white"}"#,
        r#"{"t":1.1,"type":"possible-touch","by":"black","square":"d8"}"#,
        r#"{"t":0.9,"type":"adjust","by":"white"}"#,
        r#"{"t":3.0,"type":"claim","by":"black","about":"touch-move"}"#,
        r#"{"t":3.1,"type":"claim","by":"black","about":"illegal-move"}"#,
        r#"{"t":0.0,"type":"start","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}"#,
    ];
    for line in lines {
        let event: Event = parse_event_line(line, 1).expect(line);
        let back = serde_json::to_value(&event).expect("serialise");
        let original: Value = serde_json::from_str(line).expect("json");
        assert_eq!(back, original, "{line}");
    }
}

#[test]
fn every_expected_ruling_file_round_trips_through_the_ruling_type() {
    // Rulings are read back by later stages: serialise, parse, serialise again gives the same JSON.
    for case in all_cases() {
        let events = rules_support::load_events(&case);
        let config = rules_support::config_from_args(&case_args(&case), &events);
        let (_, rulings) = rules_support::rule(&events, config);
        for ruling in rulings {
            let json = serde_json::to_string(&ruling).expect("serialise");
            let back: Ruling = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{case}: {json}: {e}"));
            assert_eq!(back, ruling, "{case}");
        }
    }
}

#[test]
fn every_ruling_has_the_common_fields() {
    for case in all_cases() {
        let events = rules_support::load_events(&case);
        let config = rules_support::config_from_args(&case_args(&case), &events);
        for ruling in rules_support::rule(&events, config).1 {
            let value = serde_json::to_value(&ruling).expect("serialise");
            for field in ["t", "frame", "kind", "article", "player", "acts", "squares"] {
                assert!(value.get(field).is_some(), "{case}: {value} lacks {field}");
            }
            if let Acts::Claim { .. } = ruling.acts {
                assert!(value.get("claim_until").is_some(), "{case}: {value}");
            }
        }
    }
}

#[test]
fn default_config_is_2023_standard_supervised_standard_chess() {
    let config = Config::default();
    assert_eq!(config.laws, Laws::Fide2023);
    assert_eq!(config.time_control, TimeControl::Standard);
    assert!(config.supervised);
    assert_eq!(config.variant, Variant::Standard);
    let engine = Engine::new(config).expect("engine");
    assert_eq!(engine.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(engine.expected_placements().len(), 20);
}

#[test]
fn bad_start_fen_is_an_error_not_a_panic() {
    let config = Config {
        start: Some("not a fen".into()),
        ..Config::default()
    };
    assert!(Engine::new(config).is_err());
}

// --- the `arbiter rule` binary -----------------------------------------------------------------------------

fn arbiter(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .arg("rule")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run arbiter");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("utf-8");
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

#[test]
fn cli_malformed_input_exits_non_zero_naming_the_line() {
    let cases = [
        (
            "{\"t\":1,\"type\":\"clock\",\"by\":\"white\"}\n{\"t\":2,\"type\":",
            "line 2: truncated JSON",
        ),
        (
            "{\"t\":1,\"type\":\"touch\",\"by\":\"white\",\"square\":\"z3\"}\n",
            "line 1: bad square \"z3\"",
        ),
        (
            "\n\n{\"t\":1,\"type\":\"wave\",\"by\":\"white\"}\n",
            "line 3: unknown event type `wave`",
        ),
    ];
    for (stream, wanted) in cases {
        let (code, stdout, stderr) = arbiter(&["-"], stream);
        assert_ne!(code, 0, "{stream}");
        assert!(stdout.is_empty(), "no rulings on malformed input: {stdout}");
        assert!(stderr.contains(wanted), "{stream}: {stderr}");
    }
}

#[test]
fn cli_missing_file_is_a_clear_error() {
    let (code, _, stderr) = arbiter(&["/nonexistent/events.jsonl"], "");
    assert_ne!(code, 0);
    assert!(stderr.contains("cannot open /nonexistent/events.jsonl"), "{stderr}");
}

#[test]
fn cli_reproduces_every_case_from_the_command_line() {
    for case in all_cases() {
        let path = rules_support::events_dir().join(format!("{case}.jsonl"));
        let path = path.to_str().expect("utf-8 path").to_owned();
        let args = case_args(&case);
        let mut argv: Vec<&str> = vec![path.as_str()];
        argv.extend(args.iter().map(String::as_str));
        let (code, stdout, stderr) = arbiter(&argv, "");
        assert_eq!(code, 0, "{case}: {stderr}");
        let got: Vec<Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{case}: {l}: {e}")))
            .collect();
        assert_rulings(&case, &got, &expected(&case));
        assert!(stderr.contains("arbiter rule:"), "{case}: a human summary on stderr");
    }
}

#[test]
fn cli_reads_stdin_with_a_dash_and_violations_still_exit_zero() {
    let stream = read_text("seed_tarrasch_alapin.jsonl");
    let (code, stdout, stderr) = arbiter(&["-"], &stream);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("\"kind\":\"touch-move\""), "{stdout}");
    assert!(stderr.contains("touch-move"), "{stderr}");
}

#[test]
fn cli_rejects_bad_settings() {
    let (code, _, stderr) = arbiter(&["-", "--laws", "2017"], "");
    assert_ne!(code, 0);
    assert!(stderr.contains("2023, 2009"), "{stderr}");
}
