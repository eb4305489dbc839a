//! What the tracker believes each square shows, from the frames where it was visible.
//!
//! A square under a hand is not read: its evidence is held from before the hand came.
//! A square that has just come out from under a hand must be seen the same way for a
//! few frames before a change on it counts ("fresh").

use std::collections::VecDeque;

use shakmaty::{Bitboard, Square};

use crate::observation::SquareProbs;
use crate::tracker::moves::Evidence;

/// Probabilities below this are clamped: no single frame may be infinitely sure.
const MIN_PROB: f64 = 1e-3;

#[derive(Debug, Clone)]
struct SquareState {
    /// Log-probabilities of the visible frames since the square was last covered.
    recent: VecDeque<[f64; 3]>,
    /// Evidence carried through a time under a hand.
    held: [f64; 3],
    /// The frame and time the current visible run began.
    visible_since: Option<(u64, f64)>,
}

/// Per-square evidence over time.
#[derive(Debug, Clone)]
pub struct SquareBeliefs {
    squares: Vec<SquareState>,
    window: usize,
}

fn log_probs(p: [f32; 3]) -> [f64; 3] {
    let q = p.map(|v| (v as f64).max(MIN_PROB));
    let sum: f64 = q.iter().sum();
    q.map(|v| (v / sum).ln())
}

fn argmax(v: &[f64; 3]) -> usize {
    (0..3).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap_or(0)
}

impl SquareBeliefs {
    /// `window`: how many visible frames a change must hold to be fresh.
    pub fn new(window: usize) -> SquareBeliefs {
        let uniform = [(1.0f64 / 3.0).ln(); 3];
        SquareBeliefs {
            squares: vec![
                SquareState {
                    recent: VecDeque::new(),
                    held: uniform,
                    visible_since: None
                };
                64
            ],
            window: window.max(1),
        }
    }

    /// Takes one frame: `covered` squares are not read; the others take `probs` when
    /// the squares were read in this frame.
    pub fn update(&mut self, frame: u64, t: f64, covered: Bitboard, probs: Option<&SquareProbs>) {
        for sq in Square::ALL {
            let s = &mut self.squares[sq as usize];
            if covered.contains(sq) {
                if !s.recent.is_empty() {
                    s.held = mean(&s.recent);
                    s.recent.clear();
                }
                s.visible_since = None;
                continue;
            }
            if s.visible_since.is_none() {
                s.visible_since = Some((frame, t));
            }
            if let Some(p) = probs.and_then(|p| p.occupancy.get(sq as usize)) {
                s.recent.push_back(log_probs(*p));
                if s.recent.len() > self.window {
                    s.recent.pop_front();
                }
            }
        }
    }

    /// The evidence for every square: the visible frames' mean, else what was held.
    pub fn evidence(&self) -> Evidence {
        let mut e = Evidence::uninformative();
        for (i, s) in self.squares.iter().enumerate() {
            e.occupancy[i] = if s.recent.is_empty() { s.held } else { mean(&s.recent) };
        }
        e
    }

    /// Whether a square has been visible for the whole window and read the same way
    /// in each of those frames.
    pub fn is_fresh(&self, sq: Square) -> bool {
        let s = &self.squares[sq as usize];
        if s.recent.len() < self.window {
            return false;
        }
        let first = argmax(&s.recent[0]);
        s.recent.iter().all(|r| argmax(r) == first)
    }

    /// When the square's current visible run began.
    pub fn visible_since(&self, sq: Square) -> Option<(u64, f64)> {
        self.squares[sq as usize].visible_since
    }

    /// The most likely class (empty, white, black) and its probability.
    pub fn reading(&self, sq: Square) -> (usize, f64) {
        let s = &self.squares[sq as usize];
        let e = if s.recent.is_empty() { s.held } else { mean(&s.recent) };
        let k = argmax(&e);
        (k, e[k].exp())
    }
}

fn mean(v: &VecDeque<[f64; 3]>) -> [f64; 3] {
    let mut m = [0.0; 3];
    for r in v {
        for k in 0..3 {
            m[k] += r[k];
        }
    }
    let n = v.len().max(1) as f64;
    m.map(|x| x / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probs(k: usize) -> SquareProbs {
        let mut p = [0.05f32; 3];
        p[k] = 0.9;
        SquareProbs {
            occupancy: vec![p; 64],
            types: None,
        }
    }

    #[test]
    fn a_covered_square_holds_its_evidence_and_needs_fresh_frames_after() {
        let mut b = SquareBeliefs::new(2);
        b.update(0, 0.0, Bitboard::EMPTY, Some(&probs(1)));
        b.update(1, 0.05, Bitboard::EMPTY, Some(&probs(1)));
        assert!(b.is_fresh(Square::E2));
        // A hand covers e2 and the camera reads it empty underneath: ignored.
        b.update(2, 0.10, Bitboard::from(Square::E2), Some(&probs(0)));
        assert_eq!(b.reading(Square::E2).0, 1);
        assert!(!b.is_fresh(Square::E2));
        b.update(3, 0.15, Bitboard::EMPTY, Some(&probs(0)));
        assert!(!b.is_fresh(Square::E2));
        b.update(4, 0.20, Bitboard::EMPTY, Some(&probs(0)));
        assert!(b.is_fresh(Square::E2));
        assert_eq!(b.reading(Square::E2).0, 0);
        assert_eq!(b.visible_since(Square::E2), Some((3, 0.15)));
    }
}
