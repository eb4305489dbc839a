//! The tracker: per-frame observations in board coordinates in, the ruling engine's
//! events out (`touch`, `possible-touch`, `lift`, `place`, `board`, `clock`).
//!
//! Pure logic on plain data ([`crate::observation`]): no OpenCV, no ONNX Runtime.
//!
//! How it decides, in one paragraph: each hand is followed from frame to frame and
//! belongs to the player whose edge its arm enters from (the player to move when the
//! arm comes in over a side edge). Its contact point (the fingertips, lowered to the
//! board plane because they are on top of pieces) *dwells* on a square when it stays
//! there, slowly, for a short while; a passing hand does not dwell. Squares under a
//! hand are not read; the others are, and once the squares a candidate move changes
//! have been seen the same way for a few frames, the candidate (the legal move, or
//! the illegal relocation, that best explains every square's probabilities) is
//! committed: `lift`, `place` and a `board` event with the new placement. A touch on
//! the piece that then moves is certain; a dwell on a piece that does not move is
//! only certain when the hand stayed on it long and clearly, and is otherwise
//! reported as a `possible-touch`, which the engine records but never penalises.

pub mod moves;
pub mod squares;

use shakmaty::{Bitboard, Chess, Color, Position, Square};

use crate::geometry::{BoardEdge, BoardPoint};
use crate::observation::{FrameObservation, HandObservation, HandSource, class_of};
use crate::rules::{BoardView, Event, EventKind};
use moves::{Candidate, CandidateKind, candidates};
use squares::SquareBeliefs;

/// The tracker's settings. Each is a physical quantity, not a number fitted to a clip.
#[derive(Debug, Clone)]
pub struct TrackerConfig {
    /// A contact point must stay on one square this long to be a touch: a grasp
    /// takes a tenth of a second or more, a hand passing over a square less.
    pub dwell_s: f64,
    /// Faster than this (squares per second) the contact point is passing, not
    /// touching: reaching hands move at 10-30 squares/s, grasping ones at under 3.
    pub max_dwell_speed: f64,
    /// A touch on a piece that does not move is certain only after this long on it
    /// with landmarks seen; shorter ones are possible touches.
    pub certain_dwell_s: f64,
    /// How far inside its square (in squares) a contact point must stay for a touch
    /// on an unmoved piece to be certain: a point near a border may be on either.
    pub certain_margin: f64,
    /// Visible frames a square must read the same before a change on it counts.
    pub fresh_frames: usize,
    /// No hand over the board for this long, and the board has settled.
    pub settle_s: f64,
    /// A hand not seen for this long has left.
    pub hand_lost_s: f64,
    /// Height of a fingertip on a piece as a share of the camera's height (see
    /// [`BoardPoint::lowered`]).
    pub tip_height_ratio: f64,
    /// Radius (in squares) around a fingertip that the hand hides from the camera.
    pub tip_cover_radius: f64,
    /// Pieces do not move without a hand: a settled board that contradicts the
    /// position is reported only when the contradiction lasts this long. Exposure
    /// swings and passing shadows are over within a second or so; a knocked-over or
    /// misread piece stays.
    pub contradiction_s: f64,
    /// An arm seen only by the occluder whose fingertip has not moved at all (less
    /// than [`STILL_BLOB_SQUARES`]) for this long is a change of the board the
    /// occluder has not learned yet (a square just emptied at the picture's edge),
    /// not an arm: a real arm, even resting, moves more than that in a second.
    pub still_blob_s: f64,
    /// Log-odds (nats) by which a move must explain the squares better than no
    /// change (4 = 55 to 1), and better than any other candidate (2 = 7 to 1).
    pub min_move_margin: f64,
    pub min_move_separation: f64,
}

impl Default for TrackerConfig {
    fn default() -> Self {
        TrackerConfig {
            dwell_s: 0.1,
            max_dwell_speed: 4.0,
            certain_dwell_s: 0.5,
            certain_margin: 0.2,
            fresh_frames: 2,
            settle_s: 0.15,
            hand_lost_s: 0.2,
            tip_height_ratio: 0.06,
            tip_cover_radius: 0.75,
            contradiction_s: 2.0,
            still_blob_s: 1.0,
            min_move_margin: 4.0,
            min_move_separation: 2.0,
        }
    }
}

/// How far (in squares) a fingertip may wander and still count as not moving.
pub const STILL_BLOB_SQUARES: f64 = 0.05;

/// A moment: frame index and seconds.
type At = (u64, f64);

/// A dwell of a hand's contact point on one square.
#[derive(Debug, Clone)]
struct Dwell {
    square: Square,
    start: At,
    last: At,
    /// Smallest distance to the square's border seen during the dwell.
    margin: f64,
    landmarks: bool,
}

/// One hand, followed over the board from when it comes until it leaves.
#[derive(Debug, Clone)]
struct HandTrack {
    /// Whose hand: from the edge the arm enters over; for an arm over a side edge,
    /// the player to move when the hand first stops on a square.
    player: Option<Color>,
    entry: Option<BoardEdge>,
    last_seen: At,
    contact: BoardPoint,
    dwell: Option<Dwell>,
    /// Finished dwells long enough to be touches, in order.
    touches: Vec<Dwell>,
    /// First moment one of this hand's fingertips was over each square.
    first_tip: [Option<At>; 64],
    /// First moment the hand (palm, fingers, arm) covered each square.
    first_cover: [Option<At>; 64],
    /// Last moment this visit's contact point was on each square.
    last_contact: [Option<At>; 64],
    /// Whether this hand has already completed a move in this visit.
    moved: bool,
    /// The square of the piece this hand has just released: resting on it, or
    /// coming back over it, is not a new touch.
    released: Option<Square>,
}

/// From observations to events. Feed it frame by frame with [`Tracker::push`] and
/// the position the ruling engine currently believes; [`Tracker::finish`] at the end.
pub struct Tracker {
    cfg: TrackerConfig,
    beliefs: SquareBeliefs,
    hands: Vec<HandTrack>,
    /// Hands that left (or that the detector lost) without a move: kept until
    /// their player's move shows which piece they took, or the board settles.
    ended: Vec<HandTrack>,
    pending: Vec<Event>,
    /// The position the candidates were built for, and the candidates.
    cached: Option<(Chess, Vec<Candidate>)>,
    /// The position on the board as the tracker believes it: the engine's, plus the
    /// move the tracker has seen and the engine has not completed yet (it completes
    /// a move at the clock press or the opponent's first touch).
    believed: Option<Chess>,
    /// The engine's position when last seen: when it changes, the tracker follows it
    /// (a completed move, a reinstated position after an illegal move).
    engine_seen: Option<Chess>,
    /// The board of the last illegal relocation reported: not reported again while
    /// it stands (the players must reinstate the position).
    reported_relocation: Option<shakmaty::Board>,
    last_hand_at: Option<f64>,
    /// Something happened since the last `board` event (or none was sent yet).
    unsettled: bool,
    /// The last board reported, so that a settled board is not reported twice.
    last_board: Option<BoardView>,
    /// Since when the settled squares have contradicted the position.
    contradiction_since: Option<f64>,
    /// Occluder-only fingertips that have not moved, and since when.
    still_blobs: Vec<(BoardPoint, f64)>,
    now: At,
}

impl Tracker {
    pub fn new(cfg: TrackerConfig) -> Tracker {
        let window = cfg.fresh_frames;
        Tracker {
            cfg,
            beliefs: SquareBeliefs::new(window),
            hands: Vec::new(),
            ended: Vec::new(),
            pending: Vec::new(),
            cached: None,
            believed: None,
            engine_seen: None,
            reported_relocation: None,
            last_hand_at: None,
            unsettled: true,
            last_board: None,
            contradiction_since: None,
            still_blobs: Vec::new(),
            now: (0, 0.0),
        }
    }

    /// Takes one frame's observations; `position` is what the ruling engine believes
    /// is on the board now. Returns the events that are final, in time order.
    pub fn push(&mut self, obs: &FrameObservation, engine_position: &Chess) -> Vec<Event> {
        self.now = (obs.frame, obs.t);
        if self.engine_seen.as_ref() != Some(engine_position) {
            self.engine_seen = Some(engine_position.clone());
            // Keep the move the engine has not completed yet; follow the engine
            // anywhere else (it reinstated a position, or was corrected).
            let ahead = self
                .believed
                .as_ref()
                .is_some_and(|b| b == engine_position || one_move_ahead(engine_position, b));
            if !ahead {
                self.believed = Some(engine_position.clone());
                self.reported_relocation = None;
            }
        }
        let believed = self.believed.clone().unwrap_or_else(|| engine_position.clone());
        let position = &believed;
        let kept = self.drop_still_blobs(&obs.hands);
        let obs = &FrameObservation {
            hands: kept,
            ..obs.clone()
        };
        let mut covered = Bitboard::EMPTY;
        for hand in &obs.hands {
            covered |= self.covered_by(hand);
        }
        self.beliefs.update(obs.frame, obs.t, covered, obs.squares.as_ref());
        // A move seen complete is committed before this frame's hands are followed,
        // so that a hand arriving now is judged against the position after it.
        self.try_commit_move(position);
        let position = &self.believed.clone().unwrap_or_else(|| position.clone());
        self.follow_hands(obs, position);
        if !obs.hands.is_empty() {
            self.last_hand_at = Some(obs.t);
            self.unsettled = true;
            self.contradiction_since = None;
        }
        self.end_lost_hands(position);
        self.maybe_settle(position);
        for &player in &obs.clock_presses {
            self.pending
                .push(event(self.now, EventKind::Clock { by: player.into() }));
        }
        self.take_final()
    }

    /// Flushes everything still held (end of the recording).
    pub fn finish(&mut self, engine_position: &Chess) -> Vec<Event> {
        let position = &self.believed.clone().unwrap_or_else(|| engine_position.clone());
        let mut lost: Vec<HandTrack> = std::mem::take(&mut self.hands);
        lost.append(&mut self.ended);
        for hand in lost {
            self.finalize_touches(&hand, position, None, f64::INFINITY);
        }
        let mut out = std::mem::take(&mut self.pending);
        sort_events(&mut out);
        out
    }

    /// The hands of this frame without the occluder-only blobs that have stood still
    /// too long to be arms (see [`TrackerConfig::still_blob_s`]).
    fn drop_still_blobs(&mut self, hands: &[HandObservation]) -> Vec<HandObservation> {
        let now = self.now.1;
        let mut seen = Vec::new();
        let mut kept = Vec::new();
        for hand in hands {
            let tip = hand.tips.first().map(|t| t.at);
            let (Some(tip), HandSource::Occluder) = (tip, hand.source) else {
                kept.push(hand.clone());
                continue;
            };
            let since = self
                .still_blobs
                .iter()
                .find(|(p, _)| dist(*p, tip) < STILL_BLOB_SQUARES)
                .map_or(now, |&(_, since)| since);
            seen.push((tip, since));
            if now - since < self.cfg.still_blob_s {
                kept.push(hand.clone());
            }
        }
        self.still_blobs = seen;
        kept
    }

    /// The squares a hand hides: what the detector says it covers, the squares near
    /// each fingertip, and the corridor from the tips back to the edge the arm
    /// comes in from.
    fn covered_by(&self, hand: &HandObservation) -> Bitboard {
        let mut out = shakmaty::Bitboard(hand.covers);
        let r = self.cfg.tip_cover_radius;
        for tip in &hand.tips {
            let p = tip.at;
            for sq in Square::ALL {
                let c = BoardPoint::centre_of(sq);
                // Distance from the tip to the square (0 when inside it).
                let dx = ((c.x - p.x).abs() - 0.5).max(0.0);
                let dy = ((c.y - p.y).abs() - 0.5).max(0.0);
                if (dx * dx + dy * dy).sqrt() <= r - 0.5 {
                    out.add(sq);
                }
            }
            if hand.covers == 0
                && let Some(edge) = hand.entry
            {
                out |= corridor(p, edge);
            }
        }
        out
    }

    /// Matches this frame's hands to the tracks, follows each contact point, and
    /// records dwells.
    fn follow_hands(&mut self, obs: &FrameObservation, position: &Chess) {
        let mut used = vec![false; self.hands.len()];
        for hand in &obs.hands {
            let Some(contact) = contact_point(hand, self.cfg.tip_height_ratio) else {
                continue;
            };
            // The nearest track from the same edge, if it is near enough to be this hand.
            let best = self
                .hands
                .iter()
                .enumerate()
                .filter(|(i, h)| !used[*i] && same_arm(h.entry, hand.entry))
                .map(|(i, h)| (i, dist(h.contact, contact)))
                .filter(|&(_, d)| d < 4.0)
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(i, _)| i);
            let idx = match best {
                Some(i) => i,
                None => {
                    let player = hand.entry.and_then(BoardEdge::player);
                    self.hands.push(HandTrack {
                        player,
                        entry: hand.entry,
                        last_seen: self.now,
                        contact,
                        dwell: None,
                        touches: Vec::new(),
                        first_tip: [None; 64],
                        first_cover: [None; 64],
                        last_contact: [None; 64],
                        moved: false,
                        released: None,
                    });
                    used.push(false);
                    self.hands.len() - 1
                }
            };
            used[idx] = true;
            let reached = self.covered_by_tips(hand);
            let (cfg, now) = (&self.cfg, self.now);
            let track = &mut self.hands[idx];
            let dt = (now.1 - track.last_seen.1).max(1e-3);
            // A hand seen for the first time has no speed yet: it is not dwelling.
            let speed = if track.last_seen == now {
                f64::INFINITY
            } else {
                dist(track.contact, contact) / dt
            };
            track.contact = contact;
            track.last_seen = now;
            for sq in reached {
                track.first_tip[sq as usize].get_or_insert(now);
            }
            for sq in Bitboard(hand.covers) | reached {
                track.first_cover[sq as usize].get_or_insert(now);
            }
            let on = contact.square();
            if let Some(sq) = on {
                track.last_contact[sq as usize] = Some(now);
            }
            let landmarks = matches!(hand.source, HandSource::Landmarks | HandSource::Both);
            let slow = speed <= cfg.max_dwell_speed;
            match (&mut track.dwell, on) {
                (Some(d), Some(sq)) if d.square == sq && slow => {
                    d.last = now;
                    d.margin = d.margin.min(margin_in(contact, sq));
                    d.landmarks |= landmarks;
                }
                _ => {
                    if let Some(d) = track.dwell.take()
                        && d.last.1 - d.start.1 + dt >= cfg.dwell_s
                    {
                        track.touches.push(d);
                    }
                    if on.is_some() && slow && track.player.is_none() {
                        track.player = Some(position.turn());
                    }
                    track.dwell = on.filter(|_| slow).map(|sq| Dwell {
                        square: sq,
                        start: now,
                        last: now,
                        margin: margin_in(contact, sq),
                        landmarks,
                    });
                }
            }
        }
    }

    /// The squares within reach of a hand's tips (for "first covered").
    fn covered_by_tips(&self, hand: &HandObservation) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for tip in &hand.tips {
            let p = tip.at.lowered(self.cfg.tip_height_ratio);
            if let Some(sq) = p.square() {
                out.add(sq);
            }
        }
        out
    }

    /// The candidates for `position`, built once per position.
    fn ensure_candidates(&mut self, position: &Chess) {
        if self.cached.as_ref().is_none_or(|(p, _)| p != position) {
            self.cached = Some((position.clone(), candidates(position)));
        }
    }

    /// Commits the best candidate when its squares have been seen clearly.
    fn try_commit_move(&mut self, position: &Chess) {
        let evidence = self.beliefs.evidence();
        let before = position.board().clone();
        let (margin, separation) = (self.cfg.min_move_margin, self.cfg.min_move_separation);
        self.ensure_candidates(position);
        let Some((_, cands)) = &self.cached else { return };
        let mut scored: Vec<(f64, &Candidate)> = cands.iter().map(|c| (c.score(&before, &evidence), c)).collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let Some(&(best_score, best)) = scored.first() else {
            return;
        };
        if matches!(best.kind, CandidateKind::NoChange) || best_score < margin {
            return;
        }
        // The runner-up that would put the board in a different state.
        let runner_up = scored
            .iter()
            .skip(1)
            .find(|(_, c)| c.board != best.board)
            .map(|(s, _)| *s);
        if runner_up.is_some_and(|s| best_score - s < separation) {
            return;
        }
        if !best.changed.into_iter().all(|sq| self.beliefs.is_fresh(sq)) {
            return;
        }
        if self.reported_relocation.as_ref() == Some(&best.board) {
            return;
        }
        let best = best.clone();
        self.commit(&best, position);
    }

    /// Emits the events of a move: the mover's touches, lift, place and the board.
    fn commit(&mut self, cand: &Candidate, position: &Chess) {
        let mover = position.turn();
        let (Some(from), Some(to)) = (cand.from(), cand.to()) else {
            return;
        };
        // The mover's visit: every hand of the mover since their last move, the ones
        // still over the board and the ones the detector lost on the way.
        let mine = |h: &HandTrack| h.player.is_none_or(|p| p == mover) && !h.moved;
        let live: Vec<usize> = (0..self.hands.len()).filter(|&i| mine(&self.hands[i])).collect();
        let (ended, others): (Vec<HandTrack>, Vec<HandTrack>) =
            std::mem::take(&mut self.ended).into_iter().partition(|h| mine(h));
        // The opponent's hands that came and went before this move did not move a
        // piece: their touches are final now (the turn passes with this move).
        for hand in others {
            self.finalize_touches(&hand, position, None, f64::INFINITY);
        }
        let parts: Vec<&HandTrack> = ended.iter().chain(live.iter().map(|&i| &self.hands[i])).collect();
        let visit = merge(&parts);
        // When the squares changed: the last time the hand was on `from` (it left
        // carrying the piece), and when the hand settled on `to` (else when `to`
        // came into view with the piece on it).
        let seen_to = self.beliefs.visible_since(to).unwrap_or(self.now);
        let place_at = visit
            .as_ref()
            .and_then(|v| {
                v.dwell
                    .iter()
                    .chain(v.touches.iter().rev())
                    .find(|d| d.square == to)
                    .map(|d| d.start)
            })
            .unwrap_or(seen_to);
        let lift_at = visit
            .as_ref()
            .and_then(|v| v.last_contact[from as usize])
            .filter(|a| a.0 <= place_at.0)
            .unwrap_or(place_at);
        if let Some(v) = &visit {
            self.finalize_touches(v, position, Some((cand, lift_at)), place_at.1);
        }
        for &i in &live {
            let h = &mut self.hands[i];
            h.player = Some(mover);
            h.touches.clear();
            h.moved = true;
            h.released = Some(to);
            h.dwell = None;
        }
        let mut events = vec![
            event(
                lift_at,
                EventKind::Lift {
                    by: mover,
                    square: from,
                },
            ),
            event(place_at, EventKind::Place { by: mover, square: to }),
        ];
        if let CandidateKind::Legal(shakmaty::Move::Castle { rook, .. }) = cand.kind {
            let side = shakmaty::CastlingSide::from_queen_side(rook.file() < from.file());
            let rook_to = Square::from_coords(side.rook_to_file(), rook.rank());
            events.push(event(
                place_at,
                EventKind::Lift {
                    by: mover,
                    square: rook,
                },
            ));
            events.push(event(
                place_at,
                EventKind::Place {
                    by: mover,
                    square: rook_to,
                },
            ));
        }
        let view = BoardView::Placement(cand.board.clone());
        self.last_board = Some(view.clone());
        events.push(event(place_at, EventKind::Board(view)));
        self.pending.extend(events);
        match &cand.kind {
            CandidateKind::Legal(m) => {
                let mut after = position.clone();
                after.play_unchecked(*m);
                self.believed = Some(after);
            }
            _ => self.reported_relocation = Some(cand.board.clone()),
        }
        self.unsettled = self.last_hand_at.is_some_and(|t| self.now.1 - t < self.cfg.settle_s);
    }

    /// Turns a hand's dwells into `touch` and `possible-touch` events. With a move
    /// (`moved`), dwells on the moved piece are touches and the moved piece is
    /// touched even where no dwell was seen (it left its square in that hand).
    fn finalize_touches(&mut self, hand: &HandTrack, position: &Chess, moved: Option<(&Candidate, At)>, until: f64) {
        let by = hand.player.unwrap_or(position.turn());
        let mut dwells: Vec<Dwell> = hand.touches.clone();
        if let Some(d) = hand.dwell.clone().filter(|d| d.last.1 - d.start.1 >= self.cfg.dwell_s) {
            dwells.push(d);
        }
        dwells.retain(|d| d.start.1 <= until && Some(d.square) != hand.released);
        let board = position.board();
        let moved_squares = moved
            .map(|(c, _)| c.changed & board.occupied())
            .unwrap_or(Bitboard::EMPTY);
        let from = moved.and_then(|(c, _)| c.from());
        let mut events = Vec::new();
        if let (Some(from), Some((_, lift_at))) = (from, moved)
            && !dwells.iter().any(|d| d.square == from)
        {
            // The piece moved, so it was touched: when a fingertip first reached
            // it, else when the hand first covered it, else when it left.
            let at = hand.first_tip[from as usize]
                .or(hand.first_cover[from as usize])
                .unwrap_or(lift_at);
            events.push(event(at, EventKind::Touch { by, square: from }));
        }
        for d in dwells {
            if board.piece_at(d.square).is_none() {
                continue;
            }
            let certain = moved_squares.contains(d.square)
                || (!hand.moved
                    && d.landmarks
                    && d.last.1 - d.start.1 >= self.cfg.certain_dwell_s
                    && d.margin >= self.cfg.certain_margin);
            let kind = if certain {
                EventKind::Touch { by, square: d.square }
            } else {
                EventKind::PossibleTouch { by, square: d.square }
            };
            events.push(event(d.start, kind));
        }
        self.pending.extend(events);
    }

    /// Hands not seen for a while have left: their touches become final.
    fn end_lost_hands(&mut self, position: &Chess) {
        let (now, lost_s) = (self.now.1, self.cfg.hand_lost_s);
        let (lost, kept): (Vec<HandTrack>, Vec<HandTrack>) = std::mem::take(&mut self.hands)
            .into_iter()
            .partition(|h| now - h.last_seen.1 > lost_s);
        self.hands = kept;
        for mut hand in lost {
            if hand.moved {
                // After its move: what it touched now is for the arbiter's eyes only.
                self.finalize_touches(&hand, position, None, f64::INFINITY);
            } else {
                if let Some(d) = hand.dwell.take().filter(|d| d.last.1 - d.start.1 >= self.cfg.dwell_s) {
                    hand.touches.push(d);
                }
                self.ended.push(hand);
            }
        }
    }

    /// A settled board (no hand for a while) is reported once after each activity:
    /// the position's placement when the squares agree with it, else the colours as
    /// seen, for the engine to judge.
    fn maybe_settle(&mut self, position: &Chess) {
        if !self.unsettled || !self.hands.is_empty() {
            return;
        }
        if self.last_hand_at.is_some_and(|t| self.now.1 - t < self.cfg.settle_s) {
            return;
        }
        if !Square::ALL.iter().all(|&sq| self.beliefs.is_fresh(sq)) {
            return;
        }
        // The hands that came and went without a move: their touches are final now.
        for hand in std::mem::take(&mut self.ended) {
            self.finalize_touches(&hand, position, None, f64::INFINITY);
        }
        let board = position.board();
        let contradicts = Square::ALL.iter().any(|&sq| {
            let (class, p) = self.beliefs.reading(sq);
            class != class_of(board, sq) && p > 0.8
        });
        let view = if contradicts {
            let since = *self.contradiction_since.get_or_insert(self.now.1);
            if self.now.1 - since < self.cfg.contradiction_s {
                return;
            }
            BoardView::Colors(self.seen_colors())
        } else {
            BoardView::Placement(board.clone())
        };
        self.contradiction_since = None;
        self.unsettled = false;
        if self.last_board.as_ref() != Some(&view) {
            self.last_board = Some(view.clone());
            self.pending.push(event(self.now, EventKind::Board(view)));
        }
    }

    fn seen_colors(&self) -> crate::rules::ColorMap {
        let mut map = crate::rules::ColorMap::of(&shakmaty::Board::empty());
        for sq in Square::ALL {
            match self.beliefs.reading(sq).0 {
                1 => map.by_color.white.add(sq),
                2 => map.by_color.black.add(sq),
                _ => {}
            }
        }
        map
    }

    /// Events older than the first dwell of every hand still followed or kept are
    /// final: those hands' touches, when they come out, are earlier.
    fn take_final(&mut self) -> Vec<Event> {
        let horizon = self
            .hands
            .iter()
            .chain(self.ended.iter())
            .map(|h| {
                let first = h.touches.first().map(|d| d.start.1).unwrap_or(h.last_seen.1);
                h.dwell.as_ref().map_or(first, |d| first.min(d.start.1))
            })
            .fold(f64::INFINITY, f64::min);
        let (mut ready, held): (Vec<Event>, Vec<Event>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|e| e.t < horizon);
        self.pending = held;
        sort_events(&mut ready);
        ready
    }
}

/// Whether two observations can be the same arm: arms over the two players' edges
/// never are; an arm over a side edge may be seen from either neighbouring edge as
/// it moves (the occluder and the landmark model do not always agree).
fn same_arm(a: Option<BoardEdge>, b: Option<BoardEdge>) -> bool {
    match (a.and_then(BoardEdge::player), b.and_then(BoardEdge::player)) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

/// One visit made of several tracks of the same player (the detector lost and
/// found the hand again): their dwells in order, the first reach of each square,
/// the last contact, the live track's current dwell.
fn merge(parts: &[&HandTrack]) -> Option<HandTrack> {
    let (first, rest) = parts.split_first()?;
    let mut v = (*first).clone();
    for p in rest {
        if let Some(d) = v.dwell.take() {
            v.touches.push(d);
        }
        v.touches.extend(p.touches.iter().cloned());
        v.dwell = p.dwell.clone();
        v.player = v.player.or(p.player);
        v.last_seen = p.last_seen;
        for i in 0..64 {
            v.first_tip[i] = min_at(v.first_tip[i], p.first_tip[i]);
            v.first_cover[i] = min_at(v.first_cover[i], p.first_cover[i]);
            v.last_contact[i] = max_at(v.last_contact[i], p.last_contact[i]);
        }
    }
    v.touches.sort_by(|a, b| a.start.1.total_cmp(&b.start.1));
    Some(v)
}

fn min_at(a: Option<At>, b: Option<At>) -> Option<At> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.1 < x.1 { y } else { x }),
        _ => a.or(b),
    }
}

fn max_at(a: Option<At>, b: Option<At>) -> Option<At> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.1 > x.1 { y } else { x }),
        _ => a.or(b),
    }
}

/// Whether `later` is `earlier` after one legal move.
fn one_move_ahead(earlier: &Chess, later: &Chess) -> bool {
    earlier.legal_moves().into_iter().any(|m| {
        let mut p = earlier.clone();
        p.play_unchecked(m);
        p == *later
    })
}

fn event(at: At, kind: EventKind) -> Event {
    Event {
        t: at.1,
        frame: Some(at.0),
        kind,
    }
}

/// Time order; at one moment, touches before lifts before places before boards.
fn sort_events(events: &mut [Event]) {
    let rank = |k: &EventKind| match k {
        EventKind::PossibleTouch { .. } | EventKind::Touch { .. } => 0,
        EventKind::Lift { .. } => 1,
        EventKind::Place { .. } => 2,
        EventKind::Board(_) => 3,
        _ => 4,
    };
    events.sort_by(|a, b| a.t.total_cmp(&b.t).then(rank(&a.kind).cmp(&rank(&b.kind))));
}

fn dist(a: BoardPoint, b: BoardPoint) -> f64 {
    ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt()
}

/// How far inside `sq` a point is (0 on the border).
fn margin_in(p: BoardPoint, sq: Square) -> f64 {
    let c = BoardPoint::centre_of(sq);
    0.5 - (p.x - c.x).abs().max((p.y - c.y).abs())
}

/// Where a hand touches: the score-weighted mean of its fingertips when they are
/// together (a grasp), else its best fingertip; lowered to the board plane.
fn contact_point(hand: &HandObservation, height_ratio: f64) -> Option<BoardPoint> {
    let best = hand.tips.iter().max_by(|a, b| a.score.total_cmp(&b.score))?;
    let near: Vec<_> = hand.tips.iter().filter(|t| dist(t.at, best.at) <= 1.0).collect();
    let w: f64 = near.iter().map(|t| t.score.max(1e-3) as f64).sum();
    let x = near.iter().map(|t| t.at.x * t.score.max(1e-3) as f64).sum::<f64>() / w;
    let y = near.iter().map(|t| t.at.y * t.score.max(1e-3) as f64).sum::<f64>() / w;
    Some(BoardPoint::new(x, y).lowered(height_ratio))
}

/// The squares between a point and a board edge (an arm's path), half a square wide.
fn corridor(p: BoardPoint, edge: BoardEdge) -> Bitboard {
    let end = match edge {
        BoardEdge::WhiteSide => BoardPoint::new(p.x, -1.0),
        BoardEdge::BlackSide => BoardPoint::new(p.x, 9.0),
        BoardEdge::AFile => BoardPoint::new(-1.0, p.y),
        BoardEdge::HFile => BoardPoint::new(9.0, p.y),
    };
    let mut out = Bitboard::EMPTY;
    let steps = 40;
    for i in 0..=steps {
        let f = i as f64 / steps as f64;
        let q = BoardPoint::new(p.x + (end.x - p.x) * f, p.y + (end.y - p.y) * f);
        for (dx, dy) in [(0.0, 0.0), (0.25, 0.0), (-0.25, 0.0), (0.0, 0.25), (0.0, -0.25)] {
            if let Some(sq) = BoardPoint::new(q.x + dx, q.y + dy).square() {
                out.add(sq);
            }
        }
    }
    out
}
