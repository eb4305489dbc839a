//! Per-board adaptation: a light residual logistic layer over the network's per-square
//! features, fitted on positions the ruling engine has confirmed (the game start and
//! later settled positions), so the reader learns this set, this board, this light.
//! Pure (no OpenCV, no ORT).
//!
//! The adapted distribution of a square is `softmax(log p_net + A·f/s + c)`: with
//! `A = 0, c = 0` it is the plain network, and the L2 penalty on `A` keeps the fit near
//! it. The fit is checked by cross-validation over the labelled squares; when it would
//! read held-out squares worse than the plain network (or badly at all), it is not used
//! and the report says why.

use serde::Serialize;
use shakmaty::{Board, Square};

use crate::observation::{BLACK, EMPTY, WHITE};

/// A placement the ruling engine has confirmed (or the game's given start). The only
/// thing the adaptation learns from: there is deliberately no way to make one from what
/// the camera itself read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfirmedPlacement(Board);

impl ConfirmedPlacement {
    /// The game's starting position as configured (`--start` or a `start` event), or
    /// the standard one: known before any frame is read.
    pub fn game_start(board: Board) -> ConfirmedPlacement {
        ConfirmedPlacement(board)
    }

    /// A settled position that the ruling engine accepted as the position on the board
    /// (after a legal move it inferred and ruled on). Never call this with a board the
    /// camera alone produced.
    pub fn engine_confirmed(board: Board) -> ConfirmedPlacement {
        ConfirmedPlacement(board)
    }

    pub fn board(&self) -> &Board {
        &self.0
    }

    /// Occupancy class (empty/white/black) of every square, a1 first.
    pub fn occupancy_labels(&self) -> [usize; 64] {
        let mut out = [EMPTY; 64];
        for (i, label) in out.iter_mut().enumerate() {
            *label = match self.0.color_at(Square::new(i as u32)) {
                None => EMPTY,
                Some(shakmaty::Color::White) => WHITE,
                Some(shakmaty::Color::Black) => BLACK,
            };
        }
        out
    }

    /// Piece-type index (P N B R Q K = 0..5) of every occupied square.
    pub fn type_labels(&self) -> [Option<usize>; 64] {
        let mut out = [None; 64];
        for (i, label) in out.iter_mut().enumerate() {
            *label = self.0.role_at(Square::new(i as u32)).map(|r| r as usize - 1);
        }
        out
    }
}

/// How well the adaptation fits, and whether it is in use.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitReport {
    /// Labelled squares (all confirmed positions kept).
    pub samples: usize,
    /// Accuracy of the plain network on them.
    pub plain_accuracy: f32,
    /// Accuracy of the fitted layer on the squares it was fitted on.
    pub fitted_accuracy: f32,
    /// Accuracy on held-out squares (4-fold cross-validation).
    pub cv_accuracy: f32,
    /// Whether the adapted layer is used; when false, the plain network is.
    pub active: bool,
    /// Why, in words.
    pub note: String,
}

/// Held-out accuracy below which a board counts as unreadable for the adapted layer.
const MIN_CV_ACCURACY: f32 = 0.9;
/// L2 weight on `A` (features are standardised, so one value fits every board).
const L2: f32 = 0.05;
const ITERATIONS: usize = 300;
const STEP: f32 = 0.5;
/// Probabilities are clamped here before the log, so that a saturated network output
/// can still be corrected.
const PROB_FLOOR: f32 = 1e-6;

/// A fitted residual layer for `K` classes over `F`-dimensional features.
#[derive(Debug, Clone, PartialEq)]
pub struct Residual {
    /// `[F][K]`, row-major.
    a: Vec<f32>,
    c: Vec<f32>,
    classes: usize,
}

/// One labelled square: its features, the network's distribution, the confirmed class.
#[derive(Debug, Clone)]
pub struct Sample {
    pub features: Vec<f32>,
    pub probs: Vec<f32>,
    pub label: usize,
}

impl Residual {
    fn zero(dims: usize, classes: usize) -> Residual {
        Residual {
            a: vec![0.0; dims * classes],
            c: vec![0.0; classes],
            classes,
        }
    }

    /// The adapted distribution for one square (features already standardised).
    pub fn apply(&self, features: &[f32], probs: &[f32]) -> Vec<f32> {
        let k = self.classes;
        let mut z: Vec<f32> = (0..k)
            .map(|j| {
                let lin: f32 = features.iter().enumerate().map(|(d, f)| f * self.a[d * k + j]).sum();
                probs[j].max(PROB_FLOOR).ln() + lin + self.c[j]
            })
            .collect();
        softmax(&mut z);
        z
    }

    /// Full-batch gradient descent on mean cross-entropy + L2 on `A`. Cheap: a few
    /// hundred squares times a few dozen features.
    pub fn fit(samples: &[Sample], classes: usize) -> Residual {
        let dims = samples.first().map_or(0, |s| s.features.len());
        let mut r = Residual::zero(dims, classes);
        if samples.is_empty() {
            return r;
        }
        let n = samples.len() as f32;
        let mut grad_a = vec![0.0f32; dims * classes];
        let mut grad_c = vec![0.0f32; classes];
        for _ in 0..ITERATIONS {
            grad_a.iter_mut().for_each(|g| *g = 0.0);
            grad_c.iter_mut().for_each(|g| *g = 0.0);
            for s in samples {
                let p = r.apply(&s.features, &s.probs);
                for j in 0..classes {
                    let g = (p[j] - if j == s.label { 1.0 } else { 0.0 }) / n;
                    grad_c[j] += g;
                    for (d, f) in s.features.iter().enumerate() {
                        grad_a[d * classes + j] += f * g;
                    }
                }
            }
            for (a, g) in r.a.iter_mut().zip(&grad_a) {
                *a -= STEP * (g + L2 * *a);
            }
            for (c, g) in r.c.iter_mut().zip(&grad_c) {
                *c -= STEP * g;
            }
        }
        r
    }
}

fn softmax(z: &mut [f32]) {
    let m = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in z.iter_mut() {
        *v = (*v - m).exp();
        sum += *v;
    }
    for v in z.iter_mut() {
        *v /= sum;
    }
}

fn argmax(v: &[f32]) -> usize {
    v.iter()
        .enumerate()
        .fold(
            (0, f32::NEG_INFINITY),
            |best, (i, &x)| if x > best.1 { (i, x) } else { best },
        )
        .0
}

fn accuracy(samples: &[Sample], predict: impl Fn(&Sample) -> Vec<f32>) -> f32 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.iter().filter(|s| argmax(&predict(s)) == s.label).count() as f32 / samples.len() as f32
}

/// Fits a residual layer and judges it: returns the layer when it may be used, and the
/// report either way.
pub fn fit_checked(samples: &[Sample], classes: usize) -> (Option<Residual>, FitReport) {
    let plain_accuracy = accuracy(samples, |s| s.probs.clone());
    let fitted = Residual::fit(samples, classes);
    let fitted_accuracy = accuracy(samples, |s| fitted.apply(&s.features, &s.probs));
    // 4 folds by sample index: positions contribute squares from every region to each fold
    let folds = 4;
    let mut right = 0usize;
    for fold in 0..folds {
        let train: Vec<Sample> = samples
            .iter()
            .enumerate()
            .filter(|(i, _)| i % folds != fold)
            .map(|(_, s)| s.clone())
            .collect();
        let layer = Residual::fit(&train, classes);
        right += samples
            .iter()
            .enumerate()
            .filter(|(i, s)| i % folds == fold && argmax(&layer.apply(&s.features, &s.probs)) == s.label)
            .count();
    }
    let cv_accuracy = if samples.is_empty() {
        0.0
    } else {
        right as f32 / samples.len() as f32
    };
    let (active, note) = if samples.is_empty() {
        (false, "no labelled squares: using the plain network".to_string())
    } else if cv_accuracy < MIN_CV_ACCURACY {
        (
            false,
            format!("poor fit (held-out accuracy {cv_accuracy:.3} < {MIN_CV_ACCURACY}): using the plain network"),
        )
    } else if cv_accuracy < plain_accuracy {
        (
            false,
            format!(
                "adaptation would not help (held-out {cv_accuracy:.3} < plain {plain_accuracy:.3}): using the plain network"
            ),
        )
    } else {
        (
            true,
            format!("adapted (held-out accuracy {cv_accuracy:.3}, plain {plain_accuracy:.3})"),
        )
    };
    let report = FitReport {
        samples: samples.len(),
        plain_accuracy,
        fitted_accuracy,
        cv_accuracy,
        active,
        note,
    };
    (active.then_some(fitted), report)
}

/// Per-feature scale from the first confirmed frame (standard deviation over its 64
/// squares, floored so that a dead feature does not blow up).
pub fn feature_scale(features: &[Vec<f32>]) -> Vec<f32> {
    let dims = features.first().map_or(0, Vec::len);
    let n = features.len().max(1) as f32;
    (0..dims)
        .map(|d| {
            let mean = features.iter().map(|f| f[d]).sum::<f32>() / n;
            let var = features.iter().map(|f| (f[d] - mean).powi(2)).sum::<f32>() / n;
            var.sqrt().max(1e-2)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(x: f32, net: [f32; 2], label: usize) -> Sample {
        Sample {
            features: vec![x, 1.0 - x],
            probs: net.to_vec(),
            label,
        }
    }

    #[test]
    fn a_wrong_but_separable_network_is_corrected_and_accepted() {
        // the network says class 0 everywhere; the feature separates the two classes
        let samples: Vec<Sample> = (0..40)
            .map(|i| {
                if i % 2 == 0 {
                    sample(1.0, [0.7, 0.3], 0)
                } else {
                    sample(0.0, [0.6, 0.4], 1)
                }
            })
            .collect();
        let (layer, report) = fit_checked(&samples, 2);
        assert!(report.active, "{report:?}");
        assert_eq!(report.fitted_accuracy, 1.0);
        assert!(report.plain_accuracy < 0.6);
        let p = layer.unwrap().apply(&[0.0, 1.0], &[0.6, 0.4]);
        assert!(p[1] > 0.5);
    }

    #[test]
    fn noise_labels_give_a_poor_fit_and_fall_back() {
        // labels unrelated to features: held-out accuracy stays near chance
        let samples: Vec<Sample> = (0..40)
            .map(|i| sample(((i * 7) % 5) as f32 / 4.0, [0.5, 0.5], (i * 13 % 3 == 0) as usize))
            .collect();
        let (layer, report) = fit_checked(&samples, 2);
        assert!(!report.active);
        assert!(layer.is_none());
        assert!(report.note.contains("plain network"));
    }

    #[test]
    fn start_position_labels() {
        let c = ConfirmedPlacement::game_start(Board::new());
        let occ = c.occupancy_labels();
        assert_eq!(occ[0], WHITE);
        assert_eq!(occ[63], BLACK);
        assert_eq!(occ.iter().filter(|&&o| o == EMPTY).count(), 32);
        let types = c.type_labels();
        assert_eq!(types[0], Some(3)); // a1 rook
        assert_eq!(types[4], Some(5)); // e1 king
        assert_eq!(types[12], Some(0)); // e2 pawn
        assert_eq!(types[30], None);
    }
}
