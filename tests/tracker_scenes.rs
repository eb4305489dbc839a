//! The tracker on scripted per-frame observations: one test per situation the real
//! footage shows (two hands at a change of turn, an arm from the top edge, captures
//! in either order, a hand resting on a piece, hands passing over pieces, shadows
//! that are not hands). No pixels: a small simulator turns a scripted physical board
//! and scripted hands into what the vision stage would report.

use arbiter::geometry::{BoardEdge, BoardPoint};
use arbiter::observation::{Fingertip, FrameObservation, HandObservation, HandSource, Player, SquareProbs, class_of};
use arbiter::rules::{Config, Engine, Event, EventKind, Ruling, RulingKind};
use arbiter::tracker::{Tracker, TrackerConfig};
use shakmaty::{Board, Chess, Color, Piece, Square};

const FPS: f64 = 20.0;

/// A scripted hand: where its fingertip is (board coordinates, as seen), where its
/// arm comes from, and whether the landmark model saw it.
#[derive(Clone, Copy)]
struct Hand {
    at: (f64, f64),
    edge: BoardEdge,
    source: HandSource,
}

fn hand(edge: BoardEdge, x: f64, y: f64) -> Hand {
    Hand {
        at: (x, y),
        edge,
        source: HandSource::Both,
    }
}

/// The centre of a square as a fingertip position.
fn on(sq: Square) -> (f64, f64) {
    let c = BoardPoint::centre_of(sq);
    (c.x, c.y)
}

struct Sim {
    frame: u64,
    physical: Board,
    tracker: Tracker,
    engine: Engine,
    events: Vec<Event>,
    rulings: Vec<Ruling>,
    /// Squares read wrongly on purpose (a shadow, an exposure swing), this frame only.
    noise: Vec<Square>,
    /// Clock presses seen in the next frame.
    presses: Vec<Player>,
}

impl Sim {
    fn new() -> Sim {
        Sim {
            frame: 0,
            physical: Board::default(),
            tracker: Tracker::new(TrackerConfig::default()),
            engine: Engine::new(Config::default()).unwrap(),
            events: Vec::new(),
            rulings: Vec::new(),
            noise: Vec::new(),
            presses: Vec::new(),
        }
    }

    fn position(&self) -> Chess {
        self.engine.position().clone()
    }

    /// One frame with these hands over the board.
    fn step(&mut self, hands: &[Hand]) {
        let mut occupancy = Vec::with_capacity(64);
        for sq in Square::ALL {
            let class = class_of(&self.physical, sq);
            let mut p = [0.05f32; 3];
            if self.noise.contains(&sq) {
                p = [0.34, 0.33, 0.33];
            } else {
                p[class] = 0.9;
            }
            occupancy.push(p);
        }
        let hands = hands
            .iter()
            .map(|h| HandObservation {
                score: 0.9,
                entry: Some(h.edge),
                tips: vec![Fingertip {
                    at: BoardPoint::new(h.at.0, h.at.1),
                    score: 0.9,
                }],
                source: h.source,
                covers: 0,
            })
            .collect();
        let obs = FrameObservation {
            frame: self.frame,
            t: self.frame as f64 / FPS,
            hands,
            squares: Some(SquareProbs { occupancy, types: None }),
            clock_presses: std::mem::take(&mut self.presses),
        };
        let pos = self.position();
        let events = self.tracker.push(&obs, &pos);
        self.feed(events);
        self.frame += 1;
        self.noise.clear();
    }

    fn feed(&mut self, events: Vec<Event>) {
        for e in events {
            self.rulings.extend(self.engine.push(&e));
            self.events.push(e);
        }
    }

    fn idle(&mut self, frames: usize) {
        for _ in 0..frames {
            self.step(&[]);
        }
    }

    /// A hand moving in a straight line over `frames` frames, ending at `to`.
    fn travel(&mut self, edge: BoardEdge, from: (f64, f64), to: (f64, f64), frames: usize, others: &[Hand]) {
        for i in 1..=frames {
            let f = i as f64 / frames as f64;
            let at = (from.0 + (to.0 - from.0) * f, from.1 + (to.1 - from.1) * f);
            let mut hs = vec![hand(edge, at.0, at.1)];
            hs.extend_from_slice(others);
            self.step(&hs);
        }
    }

    fn stay(&mut self, h: Hand, frames: usize) {
        for _ in 0..frames {
            self.step(&[h]);
        }
    }

    fn lift(&mut self, sq: Square) -> Piece {
        self.physical.remove_piece_at(sq).expect("a piece to lift")
    }

    fn put(&mut self, sq: Square, p: Piece) {
        self.physical.set_piece_at(sq, p);
    }

    fn finish(&mut self) {
        let pos = self.position();
        let events = self.tracker.finish(&pos);
        self.feed(events);
        let t = self.frame as f64 / FPS;
        self.rulings.extend(self.engine.finish(t, Some(self.frame)));
    }

    /// A plain move by the hand from `edge`: reach, grasp, carry, release, leave.
    fn play(&mut self, edge: BoardEdge, from: Square, to: Square) {
        let start = edge_point(edge, on(from));
        self.travel(edge, start, on(from), 4, &[]);
        self.carry(edge, from, to, 4, 3);
    }

    /// With the hand on `from`: grasp for `grasp` frames, lift, carry to `to`, put it
    /// down, rest on it for `rest` frames, and leave over `edge`.
    fn carry(&mut self, edge: BoardEdge, from: Square, to: Square, grasp: usize, rest: usize) {
        self.stay(hand(edge, on(from).0, on(from).1), grasp);
        let p = self.lift(from);
        self.travel(edge, on(from), on(to), 4, &[]);
        self.put(to, p);
        self.stay(hand(edge, on(to).0, on(to).1), rest);
        self.travel(edge, on(to), edge_point(edge, on(to)), 3, &[]);
    }

    fn moves(&self) -> Vec<String> {
        self.rulings
            .iter()
            .filter_map(|r| match &r.kind {
                RulingKind::Move { san, .. } => Some(san.clone()),
                _ => None,
            })
            .collect()
    }

    fn violations(&self) -> Vec<&Ruling> {
        self.rulings
            .iter()
            .filter(|r| matches!(r.kind, RulingKind::TouchMove { .. } | RulingKind::IllegalMove { .. }))
            .collect()
    }

    fn touches(&self, by: Color) -> Vec<Square> {
        self.events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::Touch { by: b, square } if b == by => Some(square),
                _ => None,
            })
            .collect()
    }

    fn possible_touches(&self) -> Vec<Square> {
        self.events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::PossibleTouch { square, .. } => Some(square),
                _ => None,
            })
            .collect()
    }
}

/// The point just off the board on `edge`, level with `p`.
fn edge_point(edge: BoardEdge, p: (f64, f64)) -> (f64, f64) {
    match edge {
        BoardEdge::WhiteSide => (p.0, -0.6),
        BoardEdge::BlackSide => (p.0, 8.6),
        BoardEdge::AFile => (-0.6, p.1),
        BoardEdge::HFile => (8.6, p.1),
    }
}

#[test]
fn a_plain_move_gives_touch_lift_place_and_board() {
    let mut s = Sim::new();
    s.idle(5);
    s.play(BoardEdge::WhiteSide, Square::E2, Square::E4);
    s.idle(5);
    s.finish();
    assert_eq!(s.moves(), ["e4"]);
    assert_eq!(s.touches(Color::White), [Square::E2]);
    assert!(s.violations().is_empty(), "{:?}", s.violations());
    let kinds: Vec<&str> = s
        .events
        .iter()
        .map(|e| match e.kind {
            EventKind::Touch { .. } => "touch",
            EventKind::Lift { .. } => "lift",
            EventKind::Place { .. } => "place",
            EventKind::Board(_) => "board",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["board", "touch", "lift", "place", "board"]);
    // Every event carries its frame, and they come in time order.
    assert!(s.events.windows(2).all(|w| w[0].t <= w[1].t && w[0].frame.is_some()));
}

#[test]
fn a_hand_passing_over_pieces_does_not_touch_them() {
    let mut s = Sim::new();
    s.idle(5);
    // In over g1, f1 and f2 at reaching speed (a square a frame), then grasp e2.
    let e = BoardEdge::WhiteSide;
    for at in [(6.5, -0.4), (6.5, 0.5), (5.5, 0.5), (5.5, 1.5)] {
        s.step(&[hand(e, at.0, at.1)]);
    }
    s.carry(e, Square::E2, Square::E4, 4, 2);
    s.idle(5);
    s.finish();
    assert_eq!(s.moves(), ["e4"]);
    assert_eq!(s.touches(Color::White), [Square::E2]);
    assert!(s.possible_touches().is_empty(), "{:?}", s.possible_touches());
}

#[test]
fn two_hands_at_a_change_of_turn_with_no_still_frame() {
    let mut s = Sim::new();
    s.idle(5);
    let (w, b) = (BoardEdge::WhiteSide, BoardEdge::BlackSide);
    s.travel(w, (4.5, -0.6), on(Square::E2), 3, &[]);
    s.stay(hand(w, 4.5, 1.5), 3);
    let p = s.lift(Square::E2);
    s.travel(w, on(Square::E2), on(Square::E4), 3, &[]);
    s.put(Square::E4, p);
    s.stay(hand(w, 4.5, 3.5), 2);
    // White's hand goes back to its edge while Black's comes in: always a hand in view.
    let white_leaving = [(4.5, 2.0), (4.5, 0.5), (4.5, -0.4), (4.5, -0.6)];
    let black_coming = [(4.5, 8.6), (4.5, 7.9), (4.5, 7.0), (4.5, 6.5)];
    for (wa, ba) in white_leaving.iter().zip(black_coming) {
        s.step(&[hand(w, wa.0, wa.1), hand(b, ba.0, ba.1)]);
    }
    s.stay(hand(b, 4.5, 6.5), 3);
    let p = s.lift(Square::E7);
    s.travel(b, on(Square::E7), on(Square::E5), 3, &[]);
    s.put(Square::E5, p);
    s.stay(hand(b, 4.5, 4.5), 2);
    s.travel(b, on(Square::E5), (4.5, 8.6), 3, &[]);
    s.idle(5);
    s.finish();
    assert_eq!(s.moves(), ["e4", "e5"]);
    assert_eq!(s.touches(Color::White), [Square::E2]);
    assert_eq!(s.touches(Color::Black), [Square::E7]);
    assert!(s.violations().is_empty(), "{:?}", s.violations());
}

#[test]
fn an_arm_from_a_side_edge_belongs_to_the_player_to_move() {
    let mut s = Sim::new();
    s.idle(5);
    s.play(BoardEdge::WhiteSide, Square::E2, Square::E4);
    s.play(BoardEdge::BlackSide, Square::E7, Square::E5);
    // White's queen goes to h5 with the arm over the h-file edge.
    s.play(BoardEdge::HFile, Square::D1, Square::H5);
    s.idle(5);
    s.finish();
    assert_eq!(s.moves(), ["e4", "e5", "Qh5"]);
    assert_eq!(s.touches(Color::White), [Square::E2, Square::D1]);
    assert!(s.violations().is_empty());
}

fn scholars_prelude(s: &mut Sim) {
    s.idle(5);
    for (edge, from, to) in [
        (BoardEdge::WhiteSide, Square::E2, Square::E4),
        (BoardEdge::BlackSide, Square::E7, Square::E5),
        (BoardEdge::WhiteSide, Square::D1, Square::H5),
        (BoardEdge::BlackSide, Square::B8, Square::C6),
        (BoardEdge::WhiteSide, Square::F1, Square::C4),
        (BoardEdge::BlackSide, Square::G8, Square::F6),
    ] {
        s.play(edge, from, to);
    }
}

#[test]
fn a_capture_with_the_capturing_piece_put_down_first() {
    let mut s = Sim::new();
    scholars_prelude(&mut s);
    let e = BoardEdge::HFile;
    s.travel(e, (8.6, 4.5), on(Square::H5), 3, &[]);
    s.stay(hand(e, 7.5, 4.5), 3);
    let queen = s.lift(Square::H5);
    s.travel(e, on(Square::H5), on(Square::F7), 3, &[]);
    // The queen stands beside the pawn on f7 under the hand; then the pawn goes.
    s.stay(hand(e, 5.5, 6.5), 6);
    s.lift(Square::F7);
    s.put(Square::F7, queen);
    s.stay(hand(e, 6.5, 6.5), 2);
    s.travel(e, (6.5, 6.5), (8.6, 6.5), 3, &[]);
    s.idle(6);
    s.finish();
    assert_eq!(s.moves(), ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]);
    assert!(s.violations().is_empty(), "{:?}", s.violations());
    assert!(s.rulings.iter().any(|r| matches!(r.kind, RulingKind::GameEnd { .. })));
}

#[test]
fn a_capture_with_the_captured_piece_taken_off_first() {
    let mut s = Sim::new();
    scholars_prelude(&mut s);
    let e = BoardEdge::WhiteSide;
    // The pawn on f7 comes off first, then the queen goes to f7.
    s.travel(e, (5.5, -0.6), on(Square::F7), 4, &[]);
    s.stay(hand(e, 5.5, 6.5), 3);
    s.lift(Square::F7);
    s.travel(e, on(Square::F7), on(Square::H5), 3, &[]);
    s.stay(hand(e, 7.5, 4.5), 3);
    let queen = s.lift(Square::H5);
    s.travel(e, on(Square::H5), on(Square::F7), 3, &[]);
    s.put(Square::F7, queen);
    s.stay(hand(e, 5.5, 6.5), 2);
    s.travel(e, on(Square::F7), (5.5, -0.6), 4, &[]);
    s.idle(6);
    s.finish();
    assert_eq!(s.moves().last().map(String::as_str), Some("Qxf7#"));
    // Touching the enemy pawn first and then capturing it complies with 4.3.2/4.3.3.
    assert!(s.violations().is_empty(), "{:?}", s.violations());
}

#[test]
fn a_hand_resting_on_the_piece_it_placed_and_coming_back_over_it() {
    let mut s = Sim::new();
    s.idle(5);
    let e = BoardEdge::WhiteSide;
    s.travel(e, (4.5, -0.6), on(Square::E2), 3, &[]);
    s.stay(hand(e, 4.5, 1.5), 3);
    let p = s.lift(Square::E2);
    s.travel(e, on(Square::E2), on(Square::E4), 3, &[]);
    s.put(Square::E4, p);
    // Rests on it for almost a second, lifts off a little, comes back over it.
    s.stay(hand(e, 4.5, 3.5), 18);
    s.travel(e, on(Square::E4), (4.5, 2.2), 2, &[]);
    s.travel(e, (4.5, 2.2), on(Square::E4), 2, &[]);
    s.stay(hand(e, 4.5, 3.5), 4);
    s.travel(e, on(Square::E4), (4.5, -0.6), 3, &[]);
    s.idle(5);
    s.finish();
    assert_eq!(s.moves(), ["e4"]);
    assert_eq!(s.touches(Color::White), [Square::E2]);
    assert!(s.violations().is_empty());
}

#[test]
fn shadows_and_exposure_swings_are_not_moves() {
    let mut s = Sim::new();
    s.idle(5);
    // No hand, but a band of squares reads as anything for a few frames.
    for _ in 0..6 {
        s.noise = vec![Square::E2, Square::E4, Square::D2, Square::D4];
        s.step(&[]);
    }
    s.idle(5);
    s.finish();
    assert!(s.moves().is_empty());
    assert!(s.events.iter().all(|e| matches!(e.kind, EventKind::Board(_))));
}

#[test]
fn a_long_clear_touch_of_another_piece_is_a_touch_move_violation() {
    let mut s = Sim::new();
    s.idle(5);
    let e = BoardEdge::WhiteSide;
    // White holds the g1 knight for a second, then plays e4 instead.
    s.travel(e, (6.5, -0.6), on(Square::G1), 3, &[]);
    s.stay(hand(e, 6.5, 0.5), 20);
    s.travel(e, on(Square::G1), on(Square::E2), 3, &[]);
    s.carry(e, Square::E2, Square::E4, 3, 2);
    s.idle(5);
    s.finish();
    assert_eq!(s.touches(Color::White), [Square::G1, Square::E2]);
    let v = s.violations();
    assert_eq!(v.len(), 1, "{:?}", s.rulings);
    match &v[0].kind {
        RulingKind::TouchMove { required, .. } => assert_eq!(required, &["Nf3", "Nh3"]),
        other => panic!("expected touch-move, got {other:?}"),
    }
}

#[test]
fn fingers_brushing_a_neighbour_are_only_a_possible_touch() {
    let mut s = Sim::new();
    s.idle(5);
    let e = BoardEdge::WhiteSide;
    // Fingers near the g1/f1 border for a quarter second, then the e2 pawn is played.
    s.travel(e, (6.3, -0.6), (6.3, 0.5), 3, &[]);
    s.stay(hand(e, 6.3, 0.5), 5);
    s.travel(e, (6.3, 0.5), on(Square::E2), 3, &[]);
    s.carry(e, Square::E2, Square::E4, 3, 2);
    s.idle(5);
    s.finish();
    assert_eq!(s.moves(), ["e4"]);
    assert_eq!(s.touches(Color::White), [Square::E2]);
    assert_eq!(s.possible_touches(), [Square::G1]);
    assert!(
        s.violations().is_empty(),
        "a doubt is never a penalty: {:?}",
        s.violations()
    );
}

#[test]
fn a_still_blob_the_occluder_mistakes_for_an_arm_does_not_block_the_move() {
    let mut s = Sim::new();
    s.idle(5);
    s.play(BoardEdge::WhiteSide, Square::E2, Square::E4);
    // Black plays Nf6; afterwards the occluder keeps reporting an "arm" on the
    // emptied g8 square that never moves (a board change it has not learned).
    let b = BoardEdge::BlackSide;
    s.travel(b, (6.5, 8.6), on(Square::G8), 3, &[]);
    s.stay(hand(b, 6.5, 7.5), 3);
    let knight = s.lift(Square::G8);
    s.travel(b, on(Square::G8), on(Square::F6), 3, &[]);
    s.put(Square::F6, knight);
    s.stay(hand(b, 5.5, 5.5), 2);
    let ghost = Hand {
        at: (6.5, 7.6),
        edge: b,
        source: HandSource::Occluder,
    };
    for _ in 0..40 {
        s.step(&[ghost]);
    }
    // The move is seen while the ghost is still reported.
    let seen = |s: &Sim| {
        s.events
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Place { square: Square::F6, .. }))
    };
    assert!(seen(&s), "Nf6 not seen while the still blob stayed: {:?}", s.events);
    s.idle(5);
    s.finish();
    assert_eq!(s.moves(), ["e4", "Nf6"]);
    assert!(s.violations().is_empty(), "{:?}", s.violations());
}

#[test]
fn a_clock_press_completes_the_move() {
    let mut s = Sim::new();
    s.idle(5);
    s.play(BoardEdge::WhiteSide, Square::E2, Square::E4);
    s.idle(3);
    s.presses = vec![Player::White];
    s.step(&[]);
    s.idle(3);
    // Completed by the clock, before any touch by Black (Art. 6.2.1).
    assert_eq!(s.moves(), ["e4"]);
    let completed = s.rulings.iter().find_map(|r| match &r.kind {
        RulingKind::Move { completed_by, .. } => Some(*completed_by),
        _ => None,
    });
    assert_eq!(completed, Some(arbiter::rules::Completion::Clock));
    assert!(
        s.events
            .iter()
            .any(|e| matches!(e.kind, EventKind::Clock { by: Color::White }))
    );
}
