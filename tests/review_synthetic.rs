//! The real clip's truth as a tracker event stream, with touch-move violations
//! inserted (a touch on another piece that can move), through the ruling engine:
//! what `arbiter review` would rule if the camera had seen those touches. Plain
//! data: the truth file that ships with the sample clip, no pixels.

use arbiter::rules::{Config, Engine, Event, EventKind, Obligation, RulingKind};
use serde_json::Value;
use shakmaty::{Chess, Color, Position, Square, uci::UciMove};

fn truth() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/footage/scholarsmate.truth.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn frame_of(m: &Value, keys: &[&str]) -> u64 {
    keys.iter()
        .find_map(|k| m.get(*k).and_then(Value::as_u64))
        .unwrap_or_else(|| panic!("no {keys:?} in {m}"))
}

fn at(frame: u64, kind: EventKind) -> Event {
    Event {
        t: frame as f64 / 20.0,
        frame: Some(frame),
        kind,
    }
}

/// The events a perfect tracker reports for the clip: per ply the first touch, the
/// lift, the placement (and the captured pawn's removal) and the settled board.
fn events_from_truth(truth: &Value) -> Vec<Event> {
    let mut pos = Chess::default();
    let mut out = vec![at(
        27,
        EventKind::Board(arbiter::rules::BoardView::Placement(pos.board().clone())),
    )];
    for m in truth["moves"].as_array().unwrap() {
        let by = if m["player"] == "White" {
            Color::White
        } else {
            Color::Black
        };
        let uci: UciMove = m["uci"].as_str().unwrap().parse().unwrap();
        let mv = uci.to_move(&pos).unwrap();
        let (from, to) = (mv.from().unwrap(), mv.to());
        out.push(at(
            frame_of(m, &["first_touch_frame"]),
            EventKind::Touch { by, square: from },
        ));
        out.push(at(frame_of(m, &["lift_frame"]), EventKind::Lift { by, square: from }));
        let placed = frame_of(m, &["place_frame", "queen_released_frame"]);
        out.push(at(placed, EventKind::Place { by, square: to }));
        if mv.is_capture() {
            out.push(at(
                frame_of(m, &["captured_pawn_lifted_frame"]),
                EventKind::Lift { by, square: to },
            ));
        }
        pos.play_unchecked(mv);
        let settled = m
            .get("hand_gone_and_still_frame")
            .and_then(Value::as_u64)
            .unwrap_or(placed + 1);
        out.push(at(
            settled,
            EventKind::Board(arbiter::rules::BoardView::Placement(pos.board().clone())),
        ));
    }
    out.sort_by(|a, b| a.t.total_cmp(&b.t));
    out
}

fn rule(events: &[Event]) -> Vec<arbiter::rules::Ruling> {
    let mut engine = Engine::new(Config::default()).unwrap();
    let mut out: Vec<_> = events.iter().flat_map(|e| engine.push(e)).collect();
    out.extend(engine.finish(events.last().unwrap().t, events.last().unwrap().frame));
    out
}

/// The truth's events with one more, `before` frames before ply `ply`'s first
/// touch (0-based ply), ruled.
fn rule_with(truth: &Value, ply: usize, before: u64, kind: EventKind) -> Vec<arbiter::rules::Ruling> {
    let mut events = events_from_truth(truth);
    let first = frame_of(&truth["moves"][ply], &["first_touch_frame"]);
    events.push(at(first - before, kind));
    events.sort_by(|a, b| a.t.total_cmp(&b.t));
    rule(&events)
}

fn sans(rulings: &[arbiter::rules::Ruling]) -> Vec<String> {
    rulings
        .iter()
        .filter_map(|r| match &r.kind {
            RulingKind::Move { san, .. } => Some(san.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_truth_as_events_gives_the_game_and_no_violation() {
    let rulings = rule(&events_from_truth(&truth()));
    assert_eq!(sans(&rulings), ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]);
    assert!(
        rulings
            .iter()
            .all(|r| !matches!(r.kind, RulingKind::TouchMove { .. } | RulingKind::IllegalMove { .. }))
    );
}

#[test]
fn a_touched_knight_before_the_queen_move_is_a_touch_move_violation() {
    let truth = truth();
    // Ply 3: White first touches the g1 knight (it can move), then plays Qh5.
    let ply3 = &truth["moves"][2];
    let rulings = rule_with(
        &truth,
        2,
        1,
        EventKind::Touch {
            by: Color::White,
            square: Square::G1,
        },
    );
    let v: Vec<_> = rulings
        .iter()
        .filter(|r| matches!(r.kind, RulingKind::TouchMove { .. }))
        .collect();
    assert_eq!(v.len(), 1, "{rulings:?}");
    match &v[0].kind {
        RulingKind::TouchMove {
            touched,
            played,
            obligation,
            required,
            ..
        } => {
            assert_eq!(touched.first(), Some(&Square::G1));
            assert_eq!(played, "Qh5");
            assert_eq!(*obligation, Obligation::MoveFirstTouchedOwn);
            assert_eq!(required, &["Ne2", "Nf3", "Nh3"]);
        }
        _ => unreachable!(),
    }
    assert_eq!(v[0].article, "4.3.1");
    // Ruled when the queen is released on h5, with the touches as evidence.
    assert!(
        v[0].frame.is_some_and(|f| f >= frame_of(ply3, &["place_frame"])),
        "{:?}",
        v[0]
    );
    assert!(v[0].squares.contains(&"g1".to_string()), "{:?}", v[0]);
}

#[test]
fn a_touched_piece_that_cannot_move_is_no_violation() {
    let truth = truth();
    // Ply 2: Black first touches the d8 queen, which has no legal move yet (4.5).
    let rulings = rule_with(
        &truth,
        1,
        1,
        EventKind::Touch {
            by: Color::Black,
            square: Square::D8,
        },
    );
    assert_eq!(sans(&rulings).len(), 7);
    assert!(
        rulings.iter().all(|r| !matches!(r.kind, RulingKind::TouchMove { .. })),
        "{rulings:?}"
    );
}

#[test]
fn a_possible_touch_is_never_a_penalty() {
    let truth = truth();
    // Ply 5: the fingers rest over g1 and f1 (the truth's own doubt): a possible touch.
    let rulings = rule_with(
        &truth,
        4,
        2,
        EventKind::PossibleTouch {
            by: Color::White,
            square: Square::G1,
        },
    );
    assert_eq!(sans(&rulings).len(), 7);
    assert!(
        rulings
            .iter()
            .all(|r| !matches!(r.kind, RulingKind::TouchMove { .. } | RulingKind::IllegalMove { .. }))
    );
}
