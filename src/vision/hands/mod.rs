//! The hand detector: every hand over the board, per frame, from two sources fused.
//!
//! - MediaPipe's models ([`models`]): palm detection on the letterboxed frame, the
//!   landmark model on a rotated crop around each palm, and tracking (the next frame's
//!   crop comes from this frame's landmarks, so a hand found once is followed).
//! - The [`occluder`]: arms that differ from what the board should look like, entering
//!   from the border of the rectified view (needs a calibration).
//! - [`fusion`]: one [`HandTrack`] per arm, with keypoints when the landmark model sees
//!   the hand, fingertips always, the entry edge, and [`HandTrack::to_observation`] for
//!   the tracker.
//!
//! State (tracked crops, background model) lives in [`HandDetector`]: call
//! [`HandDetector::detect`] on consecutive frames.

pub mod fusion;
pub mod geom;
pub mod models;
pub mod occluder;

use std::path::Path;

use opencv::core::Mat;
use opencv::prelude::*;

use crate::calibration::Calibration;
use crate::calibration::rectify::Rectifier;
use crate::geometry::{GeometryError, Homography, RectifiedView};
use crate::vision::onnx::ModelError;

pub use fusion::{HandTrack, ImageEdge};
pub use models::Variant;
pub use occluder::{ArmBlob, Occluder, OccluderError, OccluderParams};

use fusion::{ArmInImage, LandmarkHand};
use geom::{HandRect, iou};
use models::{LandmarkModel, PalmModel};

/// Why the hand detector failed.
#[derive(Debug, thiserror::Error)]
pub enum HandsError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("empty frame (no pixels): the video ended or could not be decoded")]
    EmptyFrame,
    #[error("frame must be 8-bit BGR with 3 channels, got OpenCV type {0}")]
    FrameType(i32),
    #[error("frame is {got_w}x{got_h} but the calibration was made for {want_w}x{want_h}")]
    CalibrationSize {
        got_w: i32,
        got_h: i32,
        want_w: u32,
        want_h: u32,
    },
    #[error("calibration cannot be inverted: {0}")]
    Geometry(#[from] GeometryError),
    #[error(transparent)]
    Occluder(#[from] OccluderError),
    #[error("OpenCV: {0}")]
    OpenCv(#[from] opencv::Error),
}

/// What the detector runs and how sure it must be.
#[derive(Debug, Clone, PartialEq)]
pub struct HandOptions {
    pub palm: Variant,
    pub landmark: Variant,
    /// Palm detector score threshold (MediaPipe's `min_detection_confidence`).
    pub min_palm_score: f32,
    /// Landmark model presence threshold (MediaPipe's `min_tracking_confidence`).
    pub min_presence: f32,
    /// At most this many hands from the landmark model (two players).
    pub max_hands: usize,
    /// ONNX Runtime intra-op threads per model.
    pub threads: usize,
    /// Run MediaPipe's models.
    pub landmarks: bool,
    /// Run the occluder (only when a calibration is given).
    pub occluder: bool,
    pub occluder_params: OccluderParams,
}

impl Default for HandOptions {
    fn default() -> Self {
        HandOptions {
            palm: Variant::Full,
            landmark: Variant::Full,
            min_palm_score: 0.5,
            min_presence: 0.5,
            max_hands: 2,
            threads: 1,
            landmarks: true,
            occluder: true,
            occluder_params: OccluderParams::default(),
        }
    }
}

/// The occluder and the rectifier of the calibration it was built for.
struct BoardSide {
    corners: [[f64; 2]; 4],
    size: (u32, u32),
    rectifier: Rectifier,
    occluder: Occluder,
    image_to_board: Homography,
    board_to_image: Homography,
}

/// Per-part time of the last [`HandDetector::detect`] call, seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PartTimes {
    pub palm: f64,
    pub landmark: f64,
    /// Landmark model runs in the last frame.
    pub landmark_runs: usize,
    pub occluder: f64,
}

/// The hand detector (see the module docs).
pub struct HandDetector {
    opts: HandOptions,
    palm: Option<PalmModel>,
    landmark: Option<LandmarkModel>,
    tracked: Vec<HandRect>,
    board: Option<BoardSide>,
    /// Timing of the last frame.
    pub times: PartTimes,
    /// The arms of the last frame in view pixels (for drawing and tests).
    pub last_arms: Vec<ArmBlob>,
}

impl HandDetector {
    /// Loads the models from `models_dir` (e.g. `models/hands`).
    pub fn new(models_dir: &Path, opts: HandOptions) -> Result<HandDetector, HandsError> {
        let (palm, landmark) = if opts.landmarks {
            (
                Some(PalmModel::load(models_dir, opts.palm, opts.threads)?),
                Some(LandmarkModel::load(models_dir, opts.landmark, opts.threads)?),
            )
        } else {
            (None, None)
        };
        Ok(HandDetector {
            opts,
            palm,
            landmark,
            tracked: Vec::new(),
            board: None,
            times: PartTimes::default(),
            last_arms: Vec::new(),
        })
    }

    pub fn options(&self) -> &HandOptions {
        &self.opts
    }

    /// The occluder, once a calibration has been seen (to give it expected square
    /// appearances, or to draw its state).
    pub fn occluder_mut(&mut self) -> Option<&mut Occluder> {
        self.board.as_mut().map(|b| &mut b.occluder)
    }

    /// Hands in one frame (BGR, 8-bit). Call on consecutive frames: the detector tracks
    /// hands and learns the board between calls. `calibration` enables the occluder and
    /// the board fields of the tracks.
    pub fn detect(
        &mut self,
        frame_bgr: &Mat,
        t: f64,
        _frame_index: u64,
        calibration: Option<&Calibration>,
    ) -> Result<Vec<HandTrack>, HandsError> {
        if frame_bgr.empty() || frame_bgr.cols() == 0 || frame_bgr.rows() == 0 {
            return Err(HandsError::EmptyFrame);
        }
        if frame_bgr.typ() != opencv::core::CV_8UC3 {
            return Err(HandsError::FrameType(frame_bgr.typ()));
        }
        let (w, h) = (frame_bgr.cols() as f32, frame_bgr.rows() as f32);
        self.times = PartTimes::default();
        let hands = if self.opts.landmarks {
            self.landmark_hands(frame_bgr)?
        } else {
            Vec::new()
        };
        let (arms, matches) = match calibration.filter(|_| self.opts.occluder) {
            Some(cal) => self.occluder_arms(frame_bgr, cal, t, &hands)?,
            None => (Vec::new(), vec![None; hands.len()]),
        };
        Ok(fusion::fuse(&hands, &arms, &matches, w, h))
    }

    /// MediaPipe's hand tracking: follow last frame's hands, look for palms when fewer
    /// than `max_hands` are followed, keep hands whose presence passes the threshold.
    fn landmark_hands(&mut self, frame: &Mat) -> Result<Vec<LandmarkHand>, HandsError> {
        let (Some(palm), Some(landmark)) = (self.palm.as_mut(), self.landmark.as_mut()) else {
            return Ok(Vec::new());
        };
        let mut hands: Vec<LandmarkHand> = Vec::new();
        let start = std::time::Instant::now();
        for rect in std::mem::take(&mut self.tracked) {
            self.times.landmark_runs += 1;
            let hand = landmark.run(frame, &rect)?;
            if hand.presence >= self.opts.min_presence && !overlaps_any(&hands, &hand) {
                hands.push(hand);
            }
        }
        self.times.landmark += start.elapsed().as_secs_f64();
        if hands.len() < self.opts.max_hands {
            let start = std::time::Instant::now();
            let palms = palm.run(frame, self.opts.min_palm_score)?;
            self.times.palm += start.elapsed().as_secs_f64();
            let start = std::time::Instant::now();
            for p in palms {
                if hands.len() >= self.opts.max_hands {
                    break;
                }
                // A palm inside a hand already followed is that hand.
                if hands.iter().any(|h| contains(&hand_box(h), &p.bbox)) {
                    continue;
                }
                self.times.landmark_runs += 1;
                let hand = landmark.run(frame, &geom::rect_from_palm(&p))?;
                if hand.presence >= self.opts.min_presence && !overlaps_any(&hands, &hand) {
                    hands.push(hand);
                }
            }
            self.times.landmark += start.elapsed().as_secs_f64();
        }
        self.tracked = hands
            .iter()
            .filter_map(|h| geom::rect_from_landmarks(&h.landmarks))
            .collect();
        Ok(hands)
    }

    fn occluder_arms(
        &mut self,
        frame: &Mat,
        cal: &Calibration,
        t: f64,
        hands: &[LandmarkHand],
    ) -> Result<(Vec<ArmInImage>, Vec<Option<usize>>), HandsError> {
        if cal.width as i32 != frame.cols() || cal.height as i32 != frame.rows() {
            return Err(HandsError::CalibrationSize {
                got_w: frame.cols(),
                got_h: frame.rows(),
                want_w: cal.width,
                want_h: cal.height,
            });
        }
        let start = std::time::Instant::now();
        let fresh = self
            .board
            .as_ref()
            .is_none_or(|b| b.corners != cal.corners_px || b.size != (cal.width, cal.height));
        if fresh {
            let image_to_board = cal.image_to_board();
            self.board = Some(BoardSide {
                corners: cal.corners_px,
                size: (cal.width, cal.height),
                rectifier: Rectifier::new(cal, RectifiedView::STANDARD)?,
                occluder: Occluder::new(RectifiedView::STANDARD, self.opts.occluder_params),
                board_to_image: image_to_board.inverse()?,
                image_to_board,
            });
        }
        let Some(board) = self.board.as_mut() else {
            return Ok((Vec::new(), Vec::new()));
        };
        let view = board.occluder.view();
        let to_view = view.from_source(&board.image_to_board);
        let rect = board.rectifier.rectify(frame)?;
        let image = rect.image.data_bytes()?.to_vec();
        let known = rect.known.data_bytes()?.to_vec();
        // Landmark hands are protected from the background, padded by half a square.
        let pad = view.px_per_square as f32 / 2.0;
        let hand_views: Vec<Vec<[f32; 2]>> = hands.iter().map(|h| map_points(&to_view, &h.landmarks)).collect();
        let protect: Vec<[f32; 4]> = hand_views
            .iter()
            .filter(|p| !p.is_empty())
            .map(|p| {
                let b = geom::bounds(p);
                [b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad]
            })
            .collect();
        let blobs = board.occluder.update(&image, &known, t, &protect)?;
        let (grid, cell) = board.occluder.grid();
        let matches = hand_views
            .iter()
            .map(|pts| {
                let counts: Vec<usize> = blobs
                    .iter()
                    .map(|b| {
                        pts.iter()
                            .filter(|p| {
                                let (c, r) = ((p[0] / cell as f32).floor(), (p[1] / cell as f32).floor());
                                c >= 0.0
                                    && r >= 0.0
                                    && (c as usize) < grid
                                    && (r as usize) < grid
                                    && b.cells.contains(&(r as usize * grid + c as usize))
                            })
                            .count()
                    })
                    .collect();
                // A hand lies on an arm when a quarter of its landmarks fall on the arm's cells.
                counts
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| **c >= 5)
                    .max_by_key(|(_, c)| **c)
                    .map(|(i, _)| i)
            })
            .collect();
        let from_view = board.board_to_image.after(&view.board_to_px_homography().inverse()?);
        let to_image = |p: [f32; 2]| {
            from_view
                .apply((p[0] as f64, p[1] as f64))
                .map(|(x, y)| [x as f32, y as f32])
                .unwrap_or(p)
        };
        let arms = blobs
            .iter()
            .map(|b| {
                let corners = [
                    to_image([b.bbox_px[0], b.bbox_px[1]]),
                    to_image([b.bbox_px[2], b.bbox_px[1]]),
                    to_image([b.bbox_px[2], b.bbox_px[3]]),
                    to_image([b.bbox_px[0], b.bbox_px[3]]),
                ];
                let bx = geom::bounds(&corners);
                let (w, h) = (cal.width as f32, cal.height as f32);
                ArmInImage {
                    strength: b.strength,
                    bbox: [bx[0].max(0.0), bx[1].max(0.0), bx[2].min(w), bx[3].min(h)],
                    entry_point: to_image(b.entry_px),
                    tip: to_image(b.tip_px),
                    entry_board: board.occluder.to_board(b.entry_px).nearest_edge(),
                    covers: b.covers,
                }
            })
            .collect();
        self.last_arms = blobs;
        self.times.occluder += start.elapsed().as_secs_f64();
        Ok((arms, matches))
    }
}

/// The tracks on the board plane, for the tracker (`image_to_board` from the calibration).
pub fn observations(tracks: &[HandTrack], image_to_board: &Homography) -> Vec<crate::observation::HandObservation> {
    tracks.iter().map(|t| t.to_observation(image_to_board)).collect()
}

fn map_points(h: &Homography, pts: &[[f32; 3]]) -> Vec<[f32; 2]> {
    pts.iter()
        .filter_map(|p| h.apply((p[0] as f64, p[1] as f64)).map(|(x, y)| [x as f32, y as f32]))
        .collect()
}

fn hand_box(h: &LandmarkHand) -> [f32; 4] {
    let pts: Vec<[f32; 2]> = h.landmarks.iter().map(|p| [p[0], p[1]]).collect();
    geom::bounds(&pts)
}

fn contains(outer: &[f32; 4], inner: &[f32; 4]) -> bool {
    let (cx, cy) = ((inner[0] + inner[2]) / 2.0, (inner[1] + inner[3]) / 2.0);
    cx >= outer[0] && cx <= outer[2] && cy >= outer[1] && cy <= outer[3]
}

/// Two crops that converged on one hand: keep the first.
fn overlaps_any(hands: &[LandmarkHand], hand: &LandmarkHand) -> bool {
    let b = hand_box(hand);
    hands.iter().any(|h| iou(&hand_box(h), &b) > 0.5)
}
