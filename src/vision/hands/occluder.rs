//! The occluder: every arm over the board, whatever the landmark model makes of it.
//!
//! Works in the rectified view (board seen from above, with a margin on every side),
//! on small cells (a quarter square), comparing the frame with a background model of
//! what the board should look like now:
//!
//! - **brightness is normalised first**: the frame's overall gain against the
//!   background (the median ratio over all cells) is divided out, so exposure swings
//!   change nothing;
//! - a cell **differs** when one of three cues says so, each chosen to be blind to a
//!   cast shadow (which scales the light on a surface and keeps its pattern and colour):
//!   *structure* (zero-mean normalised correlation of the cell's intensities with the
//!   background's, where either is textured: an arm hides the square edges and piece
//!   outlines, a shadow only dims them), *chromaticity* (colour with brightness divided
//!   out: skin and sleeves are not the colour of the wood), and *brightness* only where
//!   it falls or rises more than a shadow can (a shadow under indoor light keeps well over
//!   a third of the light; a dark sleeve over a light square keeps a tenth);
//! - isolated cells and one-cell-wide lines (shadow edges, noise) are dropped by a
//!   neighbourhood vote, what remains is grouped into 8-connected blobs, and a blob is an
//!   **arm** only when it comes from outside: it reaches within half a square of the
//!   view's outer edge (where it crosses the margin it may be invisible against the
//!   table), or it touches the edge of the picture, where the picture cuts the view,
//!   along at least a square's length (that edge may run along the board's own edge,
//!   where a piece touches it too; a wrist is wider than a square, a piece's base
//!   narrower); it must also cover half a square of the board, and a quarter of its
//!   cells must have changed pattern (a shadow keeps the pattern). A piece just moved
//!   changes a square inside the board and is not an arm;
//! - the **background** learns a cell only after the cell has been still for a few
//!   frames and is not under an arm (or a landmark hand): a hand resting on a piece stays
//!   a hand; a moved piece, a settled shadow or a new exposure is learned within a
//!   fraction of a second. A blob none of whose cells has moved for
//!   [`Occluder::FORGET_S`] seconds is not an arm but board not yet learned (a shadow
//!   that left, an encoder artefact): a living hand is never that still, its outline
//!   trembles; it is learned too.
//!
//! Pure Rust on plain byte buffers (BGR, row-major), so it is tested without OpenCV.
//! The piece model can later say what each square should look like through
//! [`Occluder::set_expected_square`].

use shakmaty::Square;

use crate::geometry::{BoardPoint, RectifiedView};

/// Why the occluder cannot use a frame.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum OccluderError {
    #[error("rectified frame has {got} bytes, expected {want} ({side}x{side} BGR)")]
    Size { got: usize, want: usize, side: usize },
}

/// An arm over the board, in rectified-view pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmBlob {
    /// 0..1: how clearly its cells differ from the background (mean cue strength).
    pub strength: f32,
    /// Area over the board's squares, in squares.
    pub board_area: f32,
    /// Where the arm crosses the border of the view (mean of its border cells).
    pub entry_px: [f32; 2],
    /// The blob's point farthest from where it enters (view pixels).
    pub tip_px: [f32; 2],
    /// `[xmin, ymin, xmax, ymax]` in view pixels.
    pub bbox_px: [f32; 4],
    /// Squares at least a quarter covered (bit 0 = a1).
    pub covers: u64,
    /// Cell indices (row-major over the cell grid).
    pub cells: Vec<usize>,
}

/// Thresholds, each explained by geometry or photometry (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OccluderParams {
    /// Cell side as a fraction of a square: 1/4 resolves a finger (about 0.4 square wide).
    pub cells_per_square: usize,
    /// Sensor plus compression noise of one pixel, grey levels (8-bit video).
    pub noise: f32,
    /// Below this correlation with the background a textured cell differs (0.5: half the
    /// pattern's variance no longer explained by the background's).
    pub min_correlation: f32,
    /// A cell is textured when its intensity spread exceeds this many noise levels.
    pub texture_noise_factor: f32,
    /// Chromaticity distance (r, g, b fractions) above which the colour differs: 0.05 is
    /// well above what a shadow's bluer ambient light shifts, below skin against wood.
    pub min_chroma: f32,
    /// Mean brightness below which chromaticity is not trusted (grey levels).
    pub chroma_floor: f32,
    /// Brightness ratio a shadow cannot go below (and its inverse, above).
    pub shadow_ratio: f32,
    /// Least board area, in squares, for a blob to be an arm (half a square: a finger on a piece).
    pub min_board_area: f32,
    /// Least length, in squares, along which an arm must touch the edge of the picture
    /// where the picture cuts the view: a wrist or forearm is wider than a square, a
    /// piece's base narrower.
    pub min_cut_contact: f32,
    /// Least share of an arm's cells whose pattern changed (structure cue): an arm hides
    /// square edges and piece outlines and brings its own; a shadow only dims them and is
    /// seen, if at all, through colour and brightness alone.
    pub min_structural: f32,
    /// Seconds a cell must be still before the background learns it.
    pub settle_s: f64,
    /// Background learning rate per settled frame.
    pub learn_rate: f32,
    /// Mean absolute change between frames, in noise levels, below which a cell is still
    /// (pure noise gives about 1.1: the difference of two noisy pixels).
    pub still_change: f32,
}

impl Default for OccluderParams {
    fn default() -> Self {
        OccluderParams {
            cells_per_square: 4,
            noise: 4.0,
            min_correlation: 0.5,
            texture_noise_factor: 3.0,
            min_chroma: 0.05,
            chroma_floor: 40.0,
            shadow_ratio: 0.4,
            min_board_area: 0.5,
            min_cut_contact: 1.0,
            min_structural: 0.25,
            settle_s: 0.15,
            learn_rate: 0.3,
            still_change: 2.5,
        }
    }
}

/// Per-cell statistics of one image (or of the background).
#[derive(Debug, Clone, Copy, Default)]
struct CellStats {
    mean: [f32; 3],
    y: f32,
    var: f32,
}

/// The occluder's state: background, last frame, and how long each cell has been still.
pub struct Occluder {
    view: RectifiedView,
    params: OccluderParams,
    cell: usize,
    grid: usize,
    background: Option<Vec<f32>>,
    previous: Option<Vec<u8>>,
    still_since: Vec<f64>,
    /// Cells whose background has been seen still at least once (the first frame alone
    /// is not trusted: it may hold a hand, a shadow or an encoder artefact).
    confirmed: Vec<bool>,
    /// The last per-cell difference strengths (0 where the cell matches), for drawing.
    pub last_strength: Vec<f32>,
    /// The last per-cell cues (structure, chromaticity, brightness, seconds still), for
    /// inspection.
    pub last_cues: Vec<[f32; 4]>,
    /// Blobs of the last frame that were not arms, and why.
    pub last_rejected: Vec<Rejected>,
}

/// A blob that is not an arm, and why (for inspection).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    pub why: &'static str,
    pub cells: usize,
    /// Cells on the border of the view.
    pub contact: usize,
    /// Share of cells whose pattern changed.
    pub structural: f32,
}

impl Occluder {
    /// Seconds after which a blob none of whose cells has moved is learned as board.
    pub const FORGET_S: f64 = 2.0;

    pub fn new(view: RectifiedView, params: OccluderParams) -> Occluder {
        let cell = (view.px_per_square as usize / params.cells_per_square.max(1)).max(1);
        let grid = view.size() as usize / cell;
        Occluder {
            view,
            params,
            cell,
            grid,
            background: None,
            previous: None,
            still_since: vec![0.0; grid * grid],
            confirmed: vec![false; grid * grid],
            last_strength: vec![0.0; grid * grid],
            last_cues: vec![[0.0; 4]; grid * grid],
            last_rejected: Vec::new(),
        }
    }

    pub fn view(&self) -> RectifiedView {
        self.view
    }

    /// Cells per side of the cell grid, and the cell side in pixels.
    pub fn grid(&self) -> (usize, usize) {
        (self.grid, self.cell)
    }

    /// Forgets the background (after a camera move or a new calibration).
    pub fn reset(&mut self) {
        self.background = None;
        self.previous = None;
    }

    /// Hook for the piece model: what a square should look like now (BGR, the square's
    /// `px_per_square`² pixels, row-major). Replaces the background there.
    pub fn set_expected_square(&mut self, sq: Square, patch_bgr: &[u8]) -> Result<(), OccluderError> {
        let s = self.view.px_per_square as usize;
        if patch_bgr.len() != s * s * 3 {
            return Err(OccluderError::Size {
                got: patch_bgr.len(),
                want: s * s * 3,
                side: s,
            });
        }
        let side = self.view.size() as usize;
        let Some(bg) = self.background.as_mut() else {
            return Ok(());
        };
        let (x0, y0, _, _) = self.view.square_rect(sq);
        for r in 0..s {
            for c in 0..s {
                let dst = ((y0 as usize + r) * side + x0 as usize + c) * 3;
                for k in 0..3 {
                    bg[dst + k] = patch_bgr[(r * s + c) * 3 + k] as f32;
                }
            }
        }
        Ok(())
    }

    /// Compares one rectified frame (BGR bytes, `view.size()`² x 3) with the background,
    /// returns the arms over the board and updates the background. `known` marks pixels
    /// that came from the camera (255) or lie outside its picture (0). `protect` are
    /// view-pixel boxes `[xmin, ymin, xmax, ymax]` the background must not learn (hands
    /// seen by the landmark model).
    pub fn update(
        &mut self,
        image: &[u8],
        known: &[u8],
        t: f64,
        protect: &[[f32; 4]],
    ) -> Result<Vec<ArmBlob>, OccluderError> {
        let side = self.view.size() as usize;
        if image.len() != side * side * 3 {
            return Err(OccluderError::Size {
                got: image.len(),
                want: side * side * 3,
                side,
            });
        }
        if known.len() != side * side {
            return Err(OccluderError::Size {
                got: known.len() * 3,
                want: side * side * 3,
                side,
            });
        }
        let n = self.grid * self.grid;
        // Seen by the camera (border cells are those next to unseen ones), and comparable
        // (seen, with a confirmed background).
        let seen: Vec<bool> = (0..n).map(|i| self.known_fraction(known, i) > 0.9).collect();
        let Some(bg) = self.background.take() else {
            self.background = Some(image.iter().map(|&v| v as f32).collect());
            self.previous = Some(image.to_vec());
            self.still_since = vec![t; n];
            self.confirmed = vec![false; n];
            self.last_strength = vec![0.0; n];
            return Ok(Vec::new());
        };
        let valid: Vec<bool> = (0..n).map(|i| seen[i] && self.confirmed[i]).collect();

        let frame_stats: Vec<CellStats> = (0..n).map(|i| self.stats(|p| image[p] as f32, i)).collect();
        let bg_stats: Vec<CellStats> = (0..n).map(|i| self.stats(|p| bg[p], i)).collect();
        let gain = median_gain(&frame_stats, &bg_stats, &valid);
        let mut cues: Vec<[f32; 4]> = (0..n)
            .map(|i| {
                if valid[i] {
                    self.difference(image, &bg, i, &frame_stats[i], &bg_stats[i], gain)
                } else {
                    [0.0; 4]
                }
            })
            .collect();
        let strength: Vec<f32> = cues.iter().map(|c| c[0].max(c[1]).max(c[2])).collect();
        let changed: Vec<bool> = strength.iter().map(|&s| s >= 1.0).collect();
        let mask = vote(&changed, &valid, self.grid);
        let (blobs, rejected) = self.arms(&mask, &seen, &cues);
        self.last_rejected = rejected;

        // Stillness: a cell is still while it changes no more than noise between frames
        // (after the frames' overall gain is divided out).
        let prev = self.previous.take().unwrap_or_else(|| image.to_vec());
        let prev_stats: Vec<CellStats> = (0..n).map(|i| self.stats(|p| prev[p] as f32, i)).collect();
        let step_gain = median_gain(&frame_stats, &prev_stats, &seen);
        for (i, cue) in cues.iter_mut().enumerate() {
            if self.mean_abs_change(image, &prev, step_gain, i) > self.params.still_change * self.params.noise {
                self.still_since[i] = t;
            }
            cue[3] = (t - self.still_since[i]) as f32;
        }
        // A blob none of whose cells has moved for FORGET_S is not a living arm (its
        // outline would tremble): it is board the background has not learned yet.
        let (blobs, stale): (Vec<ArmBlob>, Vec<ArmBlob>) = blobs
            .into_iter()
            .partition(|b| b.cells.iter().any(|&i| (cues[i][3] as f64) < Self::FORGET_S));
        self.last_rejected.extend(stale.iter().map(|b| Rejected {
            why: "stale",
            cells: b.cells.len(),
            contact: 0,
            structural: 0.0,
        }));

        // Background learning: settled cells away from arms and landmark hands.
        let mut protected = vec![false; n];
        for b in &blobs {
            for &c in &b.cells {
                self.mark_around(&mut protected, c, self.params.cells_per_square / 2);
            }
        }
        for bx in protect {
            self.mark_box(&mut protected, bx);
        }
        let mut bg = bg;
        for i in 0..n {
            let still_for = cues[i][3] as f64;
            if !self.confirmed[i] {
                if still_for >= self.params.settle_s {
                    self.blend(&mut bg, image, i, 1.0);
                    self.confirmed[i] = true;
                }
                continue;
            }
            if !protected[i] && still_for >= self.params.settle_s {
                self.blend(&mut bg, image, i, self.params.learn_rate);
            }
        }
        self.background = Some(bg);
        self.previous = Some(image.to_vec());
        self.last_strength = strength;
        self.last_cues = cues;
        Ok(blobs)
    }

    fn cell_pixels(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let side = self.view.size() as usize;
        let (r0, c0) = ((i / self.grid) * self.cell, (i % self.grid) * self.cell);
        (r0..r0 + self.cell).flat_map(move |r| (c0..c0 + self.cell).map(move |c| r * side + c))
    }

    fn known_fraction(&self, known: &[u8], i: usize) -> f32 {
        let k = self.cell_pixels(i).filter(|&p| known[p] > 127).count();
        k as f32 / (self.cell * self.cell) as f32
    }

    fn stats(&self, get: impl Fn(usize) -> f32, i: usize) -> CellStats {
        let (mut sum, mut sy, mut syy) = ([0.0f32; 3], 0.0f32, 0.0f32);
        for p in self.cell_pixels(i) {
            let px = [get(p * 3), get(p * 3 + 1), get(p * 3 + 2)];
            for k in 0..3 {
                sum[k] += px[k];
            }
            let y = (px[0] + px[1] + px[2]) / 3.0;
            sy += y;
            syy += y * y;
        }
        let m = (self.cell * self.cell) as f32;
        let y = sy / m;
        CellStats {
            mean: sum.map(|s| s / m),
            y,
            var: (syy / m - y * y).max(0.0),
        }
    }

    /// How strongly cell `i` differs from the background by each cue (structure,
    /// chromaticity, brightness), in units of its threshold (>= 1 means it differs).
    fn difference(&self, image: &[u8], bg: &[f32], i: usize, f: &CellStats, b: &CellStats, gain: f32) -> [f32; 4] {
        let p = &self.params;
        let mut s = [0.0f32; 4];
        // Structure: correlation where either cell is textured. The background is first
        // brought to the cell's own brightness (a shadow scales the cell: its pattern at
        // that brightness is what is expected; in a deep shadow the pattern sinks into
        // the noise and the cell is judged by the other cues).
        let local = (f.y + 1.0) / (b.y + 1.0);
        let (sf, sb) = (f.var.sqrt(), local * b.var.sqrt());
        let floor = p.texture_noise_factor * p.noise;
        if sf.max(sb) > floor {
            let mut cov = 0.0f32;
            for q in self.cell_pixels(i) {
                let yf = (image[q * 3] as f32 + image[q * 3 + 1] as f32 + image[q * 3 + 2] as f32) / 3.0 - f.y;
                let yb = (bg[q * 3] + bg[q * 3 + 1] + bg[q * 3 + 2]) / 3.0 - b.y;
                cov += yf * yb;
            }
            cov /= (self.cell * self.cell) as f32;
            let c = p.noise * p.noise;
            let ncc = local * cov / ((f.var + c) * (local * local * b.var + c)).sqrt();
            // Scaled so that the threshold correlation maps to 1 and no correlation to 1/(1-min).
            s[0] = (1.0 - ncc) / (1.0 - p.min_correlation);
        }
        // Chromaticity, where both are bright enough for colour to mean something.
        if f.y > p.chroma_floor && gain * b.y > p.chroma_floor {
            let cf = chromaticity(f.mean);
            let cb = chromaticity(b.mean);
            let d = ((cf[0] - cb[0]).powi(2) + (cf[1] - cb[1]).powi(2) + (cf[2] - cb[2]).powi(2)).sqrt();
            s[1] = d / p.min_chroma;
        }
        // Brightness beyond what a shadow (or a shadow leaving) can do.
        let ratio = (f.y + 1.0) / (gain * b.y + 1.0);
        let log_limit = -p.shadow_ratio.ln();
        s[2] = ratio.ln().abs() / log_limit;
        s
    }

    /// Mean absolute brightness change of a cell between two frames, after the frames'
    /// overall gain `gain` (a over b) is divided out.
    fn mean_abs_change(&self, a: &[u8], b: &[u8], gain: f32, i: usize) -> f32 {
        let mut d = 0.0f32;
        for p in self.cell_pixels(i) {
            let ya = a[p * 3] as f32 + a[p * 3 + 1] as f32 + a[p * 3 + 2] as f32;
            let yb = b[p * 3] as f32 + b[p * 3 + 1] as f32 + b[p * 3 + 2] as f32;
            d += (ya - gain * yb).abs();
        }
        d / 3.0 / (self.cell * self.cell) as f32
    }

    fn blend(&self, bg: &mut [f32], image: &[u8], i: usize, a: f32) {
        for p in self.cell_pixels(i) {
            for k in 0..3 {
                let v = &mut bg[p * 3 + k];
                *v += a * (image[p * 3 + k] as f32 - *v);
            }
        }
    }

    fn mark_around(&self, mask: &mut [bool], i: usize, radius: usize) {
        let (r, c) = ((i / self.grid) as isize, (i % self.grid) as isize);
        let rad = radius as isize;
        for dr in -rad..=rad {
            for dc in -rad..=rad {
                let (rr, cc) = (r + dr, c + dc);
                if rr >= 0 && cc >= 0 && (rr as usize) < self.grid && (cc as usize) < self.grid {
                    mask[rr as usize * self.grid + cc as usize] = true;
                }
            }
        }
    }

    fn mark_box(&self, mask: &mut [bool], b: &[f32; 4]) {
        let to_cell = |v: f32| ((v / self.cell as f32).floor().max(0.0) as usize).min(self.grid - 1);
        if !b.iter().all(|v| v.is_finite()) || b[2] < 0.0 || b[3] < 0.0 {
            return;
        }
        for r in to_cell(b[1])..=to_cell(b[3]) {
            for c in to_cell(b[0])..=to_cell(b[2]) {
                mask[r * self.grid + c] = true;
            }
        }
    }

    fn cell_centre(&self, i: usize) -> [f32; 2] {
        let (r, c) = (i / self.grid, i % self.grid);
        [(c as f32 + 0.5) * self.cell as f32, (r as f32 + 0.5) * self.cell as f32]
    }

    /// Connected blobs of `mask` that reach the border of the view and cover enough board.
    fn arms(&self, mask: &[bool], seen: &[bool], cues: &[[f32; 4]]) -> (Vec<ArmBlob>, Vec<Rejected>) {
        let g = self.grid;
        let mut label = vec![usize::MAX; g * g];
        let (mut out, mut rejected) = (Vec::new(), Vec::new());
        for start in 0..g * g {
            if !mask[start] || label[start] != usize::MAX {
                continue;
            }
            let mut cells = vec![start];
            label[start] = start;
            let mut k = 0;
            while k < cells.len() {
                let i = cells[k];
                k += 1;
                for j in neighbours(i, g) {
                    if mask[j] && label[j] == usize::MAX {
                        label[j] = start;
                        cells.push(j);
                    }
                }
            }
            match self.arm_from(cells, seen, cues) {
                Ok(blob) => out.push(blob),
                Err(r) => rejected.push(r),
            }
        }
        (out, rejected)
    }

    fn arm_from(&self, cells: Vec<usize>, seen: &[bool], cues: &[[f32; 4]]) -> Result<ArmBlob, Rejected> {
        let g = self.grid;
        let p = &self.params;
        // Contact with the outside: within half a square of the view's outer edge (the
        // arm may be invisible against the table there, so any contact counts), or next to
        // where the picture cuts the view (the picture's edge may run along the board's
        // own edge, where a piece touches it too: there the contact must be a wrist wide).
        let band = (p.cells_per_square / 2).max(1);
        let near_edge = |i: usize| {
            let (r, c) = (i / g, i % g);
            r.min(c).min(g - 1 - r).min(g - 1 - c) < band
        };
        let at_cut = |i: usize| neighbours(i, g).any(|j| !seen[j]);
        let edge: Vec<[f32; 2]> = cells
            .iter()
            .filter(|&&i| near_edge(i))
            .map(|&i| self.cell_centre(i))
            .collect();
        let cut: Vec<[f32; 2]> = cells
            .iter()
            .filter(|&&i| at_cut(i))
            .map(|&i| self.cell_centre(i))
            .collect();
        let border = if !edge.is_empty() { edge } else { cut };
        let structural = cells.iter().filter(|&&i| cues[i][0] >= 1.0).count() as f32 / cells.len().max(1) as f32;
        let rejected = |why: &'static str| Rejected {
            why,
            cells: cells.len(),
            contact: border.len(),
            structural,
        };
        let edge_contact = cells.iter().any(|&i| near_edge(i));
        if !edge_contact && (border.len() as f32) < p.min_cut_contact * p.cells_per_square as f32 {
            return Err(rejected("contact"));
        }
        if structural < p.min_structural {
            return Err(rejected("structure"));
        }
        let cell_area = 1.0 / (self.params.cells_per_square * self.params.cells_per_square) as f32;
        let mut square_cells = [0u32; 64];
        let mut board_cells = 0usize;
        for &i in &cells {
            if let Some(sq) = self.view.px_to_board(to_f64(self.cell_centre(i))).square() {
                square_cells[sq as usize] += 1;
                board_cells += 1;
            }
        }
        let board_area = board_cells as f32 * cell_area;
        if board_area < self.params.min_board_area {
            return Err(rejected("board area"));
        }
        let entry = mean(&border);
        let quarter = (self.params.cells_per_square * self.params.cells_per_square).div_ceil(4) as u32;
        let covers = square_cells
            .iter()
            .enumerate()
            .filter(|(_, c)| **c >= quarter)
            .fold(0u64, |b, (s, _)| b | (1 << s));
        let tip = cells
            .iter()
            .map(|&i| self.cell_centre(i))
            .max_by(|a, b| dist2(*a, entry).total_cmp(&dist2(*b, entry)))
            .unwrap_or(entry);
        let half = self.cell as f32 / 2.0;
        let pts: Vec<[f32; 2]> = cells.iter().map(|&i| self.cell_centre(i)).collect();
        let b = super::geom::bounds(&pts);
        let strength = cells
            .iter()
            .map(|&i| cues[i][0].max(cues[i][1]).max(cues[i][2]).min(2.0) / 2.0)
            .sum::<f32>()
            / cells.len().max(1) as f32;
        Ok(ArmBlob {
            strength,
            board_area,
            entry_px: entry,
            tip_px: tip,
            bbox_px: [b[0] - half, b[1] - half, b[2] + half, b[3] + half],
            covers,
            cells,
        })
    }

    /// A view pixel in board coordinates.
    pub fn to_board(&self, p: [f32; 2]) -> BoardPoint {
        self.view.px_to_board(to_f64(p))
    }
}

fn to_f64(p: [f32; 2]) -> (f64, f64) {
    (p[0] as f64, p[1] as f64)
}

fn dist2(a: [f32; 2], b: [f32; 2]) -> f32 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)
}

fn mean(pts: &[[f32; 2]]) -> [f32; 2] {
    let n = pts.len().max(1) as f32;
    [
        pts.iter().map(|p| p[0]).sum::<f32>() / n,
        pts.iter().map(|p| p[1]).sum::<f32>() / n,
    ]
}

fn chromaticity(m: [f32; 3]) -> [f32; 3] {
    let s = (m[0] + m[1] + m[2]).max(1.0);
    m.map(|v| v / s)
}

/// The frame's overall brightness against the background: the median of per-cell
/// ratios over valid cells with some light in them (1 when there are none).
fn median_gain(f: &[CellStats], b: &[CellStats], valid: &[bool]) -> f32 {
    let mut r: Vec<f32> = (0..f.len())
        .filter(|&i| valid[i] && b[i].y > 10.0 && f[i].y > 10.0)
        .map(|i| f[i].y / b[i].y)
        .collect();
    if r.is_empty() {
        return 1.0;
    }
    let mid = r.len() / 2;
    *r.select_nth_unstable_by(mid, |a, b| a.total_cmp(b)).1
}

fn neighbours(i: usize, g: usize) -> impl Iterator<Item = usize> {
    let (r, c) = ((i / g) as isize, (i % g) as isize);
    (-1isize..=1)
        .flat_map(move |dr| (-1isize..=1).map(move |dc| (dr, dc)))
        .filter_map(move |(dr, dc)| {
            let (rr, cc) = (r + dr, c + dc);
            ((dr, dc) != (0, 0) && rr >= 0 && cc >= 0 && (rr as usize) < g && (cc as usize) < g)
                .then(|| rr as usize * g + cc as usize)
        })
}

/// Neighbourhood vote on the cell grid: a changed cell stays when at least 3 of its 8
/// neighbours changed too (drops single cells and one-cell-wide lines such as shadow
/// edges; a finger is two cells wide), an unchanged valid cell is filled when 5 or more
/// did (closes holes inside an arm).
fn vote(changed: &[bool], valid: &[bool], g: usize) -> Vec<bool> {
    (0..g * g)
        .map(|i| {
            let k = neighbours(i, g).filter(|&j| changed[j]).count();
            valid[i] && if changed[i] { k >= 3 } else { k >= 5 }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIDE: usize = 320;

    /// A synthetic board: light and dark squares with a little texture, a margin of table.
    fn board() -> Vec<u8> {
        let v = RectifiedView::STANDARD;
        let mut img = vec![0u8; SIDE * SIDE * 3];
        for y in 0..SIDE {
            for x in 0..SIDE {
                let b = v.px_to_board((x as f64 + 0.5, y as f64 + 0.5));
                let base: [u8; 3] = match b.square() {
                    None => [60, 110, 160],
                    Some(sq) if (u32::from(sq.file()) + u32::from(sq.rank())) % 2 == 0 => [50, 80, 120],
                    Some(_) => [170, 200, 220],
                };
                let tex = ((x * 7 + y * 13) % 5) as u8;
                let p = (y * SIDE + x) * 3;
                img[p..p + 3].copy_from_slice(&base.map(|c| c.saturating_add(tex)));
            }
        }
        img
    }

    fn paint(img: &mut [u8], x0: usize, y0: usize, x1: usize, y1: usize, f: impl Fn([u8; 3]) -> [u8; 3]) {
        for y in y0..y1 {
            for x in x0..x1 {
                let p = (y * SIDE + x) * 3;
                let px = f([img[p], img[p + 1], img[p + 2]]);
                img[p..p + 3].copy_from_slice(&px);
            }
        }
    }

    /// Runs the occluder at 20 frames a second after half a second of the still board
    /// (so that its background is confirmed); returns the results of `frames` only.
    fn run(frames: &[Vec<u8>]) -> Vec<Vec<ArmBlob>> {
        let known = vec![255u8; SIDE * SIDE];
        let mut occ = Occluder::new(RectifiedView::STANDARD, OccluderParams::default());
        let warm = vec![board(); 10];
        let all: Vec<Vec<ArmBlob>> = warm
            .iter()
            .chain(frames)
            .enumerate()
            .map(|(i, f)| occ.update(f, &known, i as f64 * 0.05, &[]).unwrap())
            .collect();
        assert!(all[..10].iter().all(|o| o.is_empty()));
        all[10..].to_vec()
    }

    #[test]
    fn an_arm_from_the_right_edge_is_found_with_its_tip() {
        let still = board();
        let mut arm = still.clone();
        paint(&mut arm, 150, 140, SIDE, 180, |_| [40, 40, 45]); // dark sleeve
        paint(&mut arm, 120, 145, 150, 175, |_| [130, 150, 200]); // skin
        let out = run(&[still.clone(), still.clone(), arm]);
        assert!(out[1].is_empty());
        assert_eq!(out[2].len(), 1, "{:?}", out[2].len());
        let b = &out[2][0];
        assert!(b.entry_px[0] > 300.0, "{:?}", b.entry_px);
        assert!(b.tip_px[0] < 130.0, "{:?}", b.tip_px);
        let occ = Occluder::new(RectifiedView::STANDARD, OccluderParams::default());
        assert_eq!(
            occ.to_board(b.entry_px).nearest_edge(),
            crate::geometry::BoardEdge::HFile
        );
    }

    #[test]
    fn a_shadow_and_an_exposure_swing_are_not_arms() {
        let still = board();
        let mut shadow = still.clone();
        paint(&mut shadow, 100, 0, SIDE, 200, |p| p.map(|c| (c as f32 * 0.55) as u8));
        let bright: Vec<u8> = still.iter().map(|&c| (c as f32 * 1.3).min(255.0) as u8).collect();
        let out = run(&[still.clone(), still.clone(), shadow, bright]);
        assert!(out[2].is_empty(), "shadow seen as {} arms", out[2].len());
        assert!(out[3].is_empty(), "exposure seen as {} arms", out[3].len());
    }

    #[test]
    fn a_moved_piece_in_the_middle_is_not_an_arm_and_is_learned() {
        let still = board();
        let mut moved = still.clone();
        paint(&mut moved, 140, 140, 165, 165, |_| [20, 25, 30]);
        let mut frames = vec![still.clone(), still.clone()];
        frames.extend(std::iter::repeat_n(moved.clone(), 8));
        let out = run(&frames);
        assert!(out.iter().all(|o| o.is_empty()));
    }

    #[test]
    fn a_still_arm_stays_while_a_piece_settles() {
        let still = board();
        let mut arm = still.clone();
        paint(&mut arm, 150, 140, SIDE, 180, |_| [40, 40, 45]);
        let mut frames = vec![still.clone(), still.clone()];
        frames.extend(std::iter::repeat_n(arm, 30)); // 1.5 s resting
        let out = run(&frames);
        assert!(out[2..].iter().all(|o| o.len() == 1));
    }

    #[test]
    fn wrong_sizes_are_errors() {
        let mut occ = Occluder::new(RectifiedView::STANDARD, OccluderParams::default());
        let e = occ.update(&[0u8; 10], &[255u8; SIDE * SIDE], 0.0, &[]).unwrap_err();
        assert!(matches!(e, OccluderError::Size { got: 10, .. }));
    }
}
