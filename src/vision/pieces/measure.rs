//! Scoring readings against known positions (the model card's figures and the real-
//! footage test). Pure (no OpenCV, no ORT).

use std::path::Path;

use serde::Serialize;
use shakmaty::uci::UciMove;
use shakmaty::{Board, Chess, Position, Square};

use crate::observation::{SquareProbs, class_of};

/// The settled frames of a clip and the position on the board in each, from a truth
/// file in the format of `scholarsmate.truth.json`: the start position is standard and
/// verified at `board.start_position` ("... verified at frame N"), each move may have a
/// `still_window` [first, last] after it.
pub fn settled_frames(truth_path: &Path) -> Result<Vec<(u64, Board)>, String> {
    let text = std::fs::read_to_string(truth_path).map_err(|e| format!("cannot read {}: {e}", truth_path.display()))?;
    let truth: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", truth_path.display()))?;
    let start_note = truth["board"]["start_position"].as_str().unwrap_or_default();
    let start_frame: u64 = start_note
        .rsplit("frame ")
        .next()
        .and_then(|s| s.trim().parse().ok())
        .ok_or_else(|| format!("{}: board.start_position names no frame", truth_path.display()))?;
    let mut pos = Chess::default();
    let mut out = vec![(start_frame, pos.board().clone())];
    let moves = truth["moves"].as_array().ok_or("truth file has no `moves`")?;
    for m in moves {
        let uci = m["uci"].as_str().ok_or("a move has no `uci`")?;
        let mv = uci
            .parse::<UciMove>()
            .map_err(|e| format!("move {uci}: {e}"))?
            .to_move(&pos)
            .map_err(|e| format!("move {uci}: {e}"))?;
        pos = pos.play(mv).map_err(|e| format!("move {uci}: {e}"))?;
        if let Some(w) = m["still_window"].as_array() {
            let (a, b) = (w.first().and_then(|v| v.as_u64()), w.get(1).and_then(|v| v.as_u64()));
            let (Some(a), Some(b)) = (a, b) else {
                return Err(format!("move {uci}: bad still_window"));
            };
            out.extend((a..=b).map(|f| (f, pos.board().clone())));
        }
    }
    Ok(out)
}

/// Frame ranges the truth file flags as lighting events (its `non_hand_events` whose
/// description mentions shadows or exposure), with the description.
pub fn lighting_events(truth_path: &Path) -> Result<Vec<(u64, u64, String)>, String> {
    let text = std::fs::read_to_string(truth_path).map_err(|e| format!("cannot read {}: {e}", truth_path.display()))?;
    let truth: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", truth_path.display()))?;
    let events = truth["non_hand_events"].as_array().cloned().unwrap_or_default();
    Ok(events
        .iter()
        .filter_map(|e| {
            let what = e["what"].as_str()?.to_string();
            let lower = what.to_lowercase();
            if !(lower.contains("shadow") || lower.contains("exposure")) {
                return None;
            }
            let frames = e["frames"].as_array()?;
            Some((frames.first()?.as_u64()?, frames.get(1)?.as_u64()?, what))
        })
        .collect())
}

fn argmax(p: &[f32]) -> usize {
    (0..p.len()).fold(0, |best, i| if p[i] > p[best] { i } else { best })
}

/// Running scores over many frames.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Tally {
    pub frames: usize,
    pub squares: usize,
    pub squares_right: usize,
    /// Frames with all 64 squares right.
    pub boards_right: usize,
    /// Occupancy confusion [truth][read] over (empty, white, black).
    pub occupancy: [[usize; 3]; 3],
    /// Type confusion [truth][read] over P N B R Q K, on occupied squares.
    pub types: [[usize; 6]; 6],
    /// Up to a few (frame, square, truth, read) mistakes, for the report.
    pub examples: Vec<(u64, String, usize, usize)>,
}

impl Tally {
    pub fn add(&mut self, frame: u64, probs: &SquareProbs, truth: &Board) {
        let mut all = true;
        for i in 0..64 {
            let sq = Square::new(i as u32);
            let want = class_of(truth, sq);
            let got = argmax(&probs.occupancy[i]);
            self.occupancy[want][got] += 1;
            self.squares += 1;
            if want == got {
                self.squares_right += 1;
            } else {
                all = false;
                if self.examples.len() < 12 {
                    self.examples.push((frame, sq.to_string(), want, got));
                }
            }
            if let (Some(role), Some(types)) = (truth.role_at(sq), &probs.types) {
                self.types[role as usize - 1][argmax(&types[i])] += 1;
            }
        }
        self.frames += 1;
        self.boards_right += usize::from(all);
    }

    pub fn square_accuracy(&self) -> f64 {
        self.squares_right as f64 / self.squares.max(1) as f64
    }

    pub fn type_accuracy(&self) -> f64 {
        let right: usize = (0..6).map(|i| self.types[i][i]).sum();
        let all: usize = self.types.iter().flatten().sum();
        right as f64 / all.max(1) as f64
    }

    /// Several lines of text: accuracy, boards, confusion matrices.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "per-square occupancy/colour {:.4} ({} of {} wrong), full boards {}/{}, types {:.3}\n",
            self.square_accuracy(),
            self.squares - self.squares_right,
            self.squares,
            self.boards_right,
            self.frames,
            self.type_accuracy()
        );
        s.push_str("  occupancy confusion (rows truth, cols read): empty white black\n");
        for (name, row) in ["empty", "white", "black"].iter().zip(&self.occupancy) {
            s.push_str(&format!("    {name:>5} {:>6} {:>6} {:>6}\n", row[0], row[1], row[2]));
        }
        s.push_str("  type confusion (rows truth, cols read):     P     N     B     R     Q     K\n");
        for (name, row) in ["P", "N", "B", "R", "Q", "K"].iter().zip(&self.types) {
            s.push_str(&format!(
                "    {name:>40} {}\n",
                row.iter().map(|v| format!("{v:>5}")).collect::<Vec<_>>().join(" ")
            ));
        }
        for (frame, sq, want, got) in &self.examples {
            let names = ["empty", "white", "black"];
            s.push_str(&format!(
                "  frame {frame} {sq}: truth {} read {}\n",
                names[*want], names[*got]
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::pieces::board::probs_of;

    #[test]
    fn a_perfect_reading_scores_one() {
        let mut t = Tally::default();
        t.add(0, &probs_of(&Board::new()), &Board::new());
        assert_eq!(t.square_accuracy(), 1.0);
        assert_eq!(t.boards_right, 1);
        assert_eq!(t.type_accuracy(), 1.0);
        let mut empty = Tally::default();
        empty.add(0, &probs_of(&Board::empty()), &Board::new());
        assert_eq!(empty.squares_right, 32);
        assert_eq!(empty.boards_right, 0);
    }
}
