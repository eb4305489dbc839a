//! Clock presses: each player's clock button is a region of the picture (from the
//! calibration). A press is a hand that covers the button briefly and leaves it.
//!
//! The button's look when nothing is over it is learned slowly while it is clear (so
//! that lighting drifts are followed); a region counts as covered when most of its
//! pixels differ strongly from that look.

use opencv::core::{Mat, Point, Rect, Scalar, Vector};
use opencv::imgproc;
use opencv::prelude::*;

use crate::calibration::file::Region;
use crate::observation::Player;

/// A pixel differs "strongly" beyond this many grey levels: far above sensor noise and
/// compression (a few levels), well below a hand over a light or dark button.
const PIXEL_LEVEL: f64 = 30.0;
/// The region is covered when this share of its pixels differ strongly: a hand over a
/// button covers most of it; a shadow's edge or a slow lighting change does not.
const COVERED_SHARE: f64 = 0.35;
/// A press lasts at least this long (a hand passing through one frame is not a press)
/// and at most this long (a hand resting on the clock is not pressing it).
const MIN_PRESS_S: f64 = 0.05;
const MAX_PRESS_S: f64 = 2.0;
/// How fast the clear look follows lighting (share of each clear frame).
const LEARN_RATE: f64 = 0.05;

struct Button {
    player: Player,
    rect: Rect,
    mask: Mat,
    reference: Option<Mat>,
    covered_since: Option<f64>,
}

/// Watches the calibrated clock buttons.
pub struct ClockWatcher {
    buttons: Vec<Button>,
}

impl ClockWatcher {
    /// One button per `kind = "clock"` region with a player; regions outside a
    /// `width` x `height` picture are clipped, empty ones ignored.
    pub fn new(regions: &[Region], width: i32, height: i32) -> opencv::Result<ClockWatcher> {
        let mut buttons = Vec::new();
        for r in regions.iter().filter(|r| r.kind == "clock") {
            let player = match r.player.as_deref() {
                Some("white") => Player::White,
                Some("black") => Player::Black,
                _ => continue,
            };
            let pts: Vec<Point> = r
                .polygon_px
                .iter()
                .map(|p| Point::new(p[0].round() as i32, p[1].round() as i32))
                .collect();
            let (Some(x0), Some(y0)) = (pts.iter().map(|p| p.x).min(), pts.iter().map(|p| p.y).min()) else {
                continue;
            };
            let (x1, y1) = (
                pts.iter().map(|p| p.x).max().unwrap_or(x0),
                pts.iter().map(|p| p.y).max().unwrap_or(y0),
            );
            let (x0, y0, x1, y1) = (x0.max(0), y0.max(0), x1.min(width - 1), y1.min(height - 1));
            if x1 <= x0 || y1 <= y0 {
                continue;
            }
            let rect = Rect::new(x0, y0, x1 - x0 + 1, y1 - y0 + 1);
            let mut mask = Mat::zeros(rect.height, rect.width, opencv::core::CV_8UC1)?.to_mat()?;
            let local: Vector<Point> = pts.iter().map(|p| Point::new(p.x - x0, p.y - y0)).collect();
            let polys: Vector<Vector<Point>> = Vector::from_iter([local]);
            imgproc::fill_poly_def(&mut mask, &polys, Scalar::all(255.0))?;
            buttons.push(Button {
                player,
                rect,
                mask,
                reference: None,
                covered_since: None,
            });
        }
        Ok(ClockWatcher { buttons })
    }

    pub fn is_empty(&self) -> bool {
        self.buttons.is_empty()
    }

    /// Looks at one frame (BGR); returns the presses that ended in it.
    pub fn update(&mut self, frame_bgr: &Mat, t: f64) -> opencv::Result<Vec<Player>> {
        let mut presses = Vec::new();
        for b in &mut self.buttons {
            let patch = Mat::roi(frame_bgr, b.rect)?;
            let mut grey = Mat::default();
            imgproc::cvt_color_def(&patch, &mut grey, imgproc::COLOR_BGR2GRAY)?;
            let mut grey_f = Mat::default();
            grey.convert_to_def(&mut grey_f, opencv::core::CV_32F)?;
            let Some(reference) = b.reference.as_mut() else {
                b.reference = Some(grey_f);
                continue;
            };
            let mut diff = Mat::default();
            opencv::core::absdiff(&grey_f, reference, &mut diff)?;
            let mut strong = Mat::default();
            imgproc::threshold(&diff, &mut strong, PIXEL_LEVEL, 255.0, imgproc::THRESH_BINARY)?;
            let mut strong8 = Mat::default();
            strong.convert_to_def(&mut strong8, opencv::core::CV_8U)?;
            let mut inside = Mat::default();
            opencv::core::bitwise_and_def(&strong8, &b.mask, &mut inside)?;
            let area = opencv::core::count_non_zero(&b.mask)?.max(1) as f64;
            let covered = opencv::core::count_non_zero(&inside)? as f64 / area >= COVERED_SHARE;
            match (covered, b.covered_since) {
                (true, None) => b.covered_since = Some(t),
                (false, Some(since)) => {
                    b.covered_since = None;
                    if (MIN_PRESS_S..=MAX_PRESS_S).contains(&(t - since)) {
                        presses.push(b.player);
                    }
                }
                (false, None) => {
                    let mut learned = Mat::default();
                    opencv::core::add_weighted_def(
                        &grey_f,
                        LEARN_RATE,
                        &*reference,
                        1.0 - LEARN_RATE,
                        0.0,
                        &mut learned,
                    )?;
                    *reference = learned;
                }
                (true, Some(_)) => {}
            }
        }
        Ok(presses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{CV_8UC3, Scalar};

    fn frame(level: f64) -> Mat {
        Mat::new_rows_cols_with_default(240, 320, CV_8UC3, Scalar::all(level)).unwrap()
    }

    /// A dark hand over the button.
    fn with_hand(level: f64) -> Mat {
        let mut f = frame(level);
        imgproc::rectangle(
            &mut f,
            Rect::new(250, 180, 60, 50),
            Scalar::all(20.0),
            -1,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        f
    }

    fn watcher() -> ClockWatcher {
        let region = Region {
            name: "white-clock".into(),
            kind: "clock".into(),
            player: Some("white".into()),
            polygon_px: vec![[260.0, 190.0], [300.0, 190.0], [300.0, 220.0], [260.0, 220.0]],
        };
        ClockWatcher::new(&[region], 320, 240).unwrap()
    }

    #[test]
    fn a_brief_cover_is_a_press_and_a_lighting_drift_or_a_resting_hand_is_not() {
        let mut w = watcher();
        let mut presses = Vec::new();
        let mut t = 0.0;
        let mut run = |w: &mut ClockWatcher, f: &Mat, n: usize, out: &mut Vec<Player>| {
            for _ in 0..n {
                out.extend(w.update(f, t).unwrap());
                t += 0.05;
            }
        };
        run(&mut w, &frame(180.0), 5, &mut presses);
        // Lighting drifts by 10 levels: no press.
        run(&mut w, &frame(190.0), 10, &mut presses);
        assert!(presses.is_empty());
        // A hand over the button for 0.2 s, then gone: one press by White.
        run(&mut w, &with_hand(190.0), 4, &mut presses);
        run(&mut w, &frame(190.0), 3, &mut presses);
        assert_eq!(presses, [Player::White]);
        // A hand resting on the clock for 3 s is not a press.
        run(&mut w, &with_hand(190.0), 60, &mut presses);
        run(&mut w, &frame(190.0), 3, &mut presses);
        assert_eq!(presses, [Player::White]);
    }
}
