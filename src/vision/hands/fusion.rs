//! Fusion of what the landmark model and the occluder see into hand tracks, and the
//! track's conversion to the tracker's [`HandObservation`]. Pure (no OpenCV, no ORT).

use serde::{Deserialize, Serialize};

use crate::geometry::{BoardEdge, BoardPoint, Homography};
use crate::observation::{Fingertip, HandObservation, HandSource};

use super::geom::{TIPS, bounds};

/// An edge of the source picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageEdge {
    Left,
    Right,
    Top,
    Bottom,
}

/// One hand (or arm) in one frame, in source-image pixels, as `arbiter hands` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandTrack {
    /// 0..1, how sure the detector is that this is a hand.
    pub score: f32,
    /// `[x0, y0, x1, y1]` in source pixels.
    #[serde(rename = "box")]
    pub bbox: [f32; 4],
    /// The 21 landmarks `[x, y, score]` when the landmark model sees the hand.
    pub keypoints: Option<Vec<[f32; 3]>>,
    /// Fingertips `[x, y, score]`: the landmark tips, else the arm's farthest point.
    pub tips: Vec<[f32; 3]>,
    /// The picture edge the arm comes from.
    pub entry: ImageEdge,
    pub source: HandSource,
    /// Where the arm crosses into view (source pixels).
    #[serde(skip)]
    pub entry_point: [f32; 2],
    /// The board edge the arm enters from, when the occluder saw the arm.
    #[serde(skip)]
    pub entry_board: Option<BoardEdge>,
    /// Squares covered by the arm as the occluder saw it (bit 0 = a1), 0 if unknown.
    #[serde(skip)]
    pub covers: u64,
}

impl HandTrack {
    /// The track on the board plane, for the tracker.
    pub fn to_observation(&self, image_to_board: &Homography) -> HandObservation {
        let board = |p: [f32; 2]| {
            image_to_board
                .apply((p[0] as f64, p[1] as f64))
                .map(|(x, y)| BoardPoint::new(x, y))
        };
        let tips: Vec<Fingertip> = self
            .tips
            .iter()
            .filter_map(|t| board([t[0], t[1]]).map(|at| Fingertip { at, score: t[2] }))
            .collect();
        let entry = self
            .entry_board
            .or_else(|| board(self.entry_point).map(|p| p.nearest_edge()));
        let mut covers = self.covers;
        if covers == 0 {
            for k in self.keypoints.iter().flatten() {
                if let Some(sq) = board([k[0], k[1]]).and_then(|p| p.square()) {
                    covers |= 1 << (sq as u32);
                }
            }
        }
        HandObservation {
            score: self.score,
            entry,
            tips,
            source: self.source,
            covers,
        }
    }
}

/// A hand the landmark model found, in source pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct LandmarkHand {
    /// The model's hand presence.
    pub presence: f32,
    /// 21 x (x, y, z) in source pixels (z relative, unused).
    pub landmarks: Vec<[f32; 3]>,
}

/// An arm the occluder found, already mapped to source pixels and the board.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmInImage {
    pub strength: f32,
    pub bbox: [f32; 4],
    pub entry_point: [f32; 2],
    pub tip: [f32; 2],
    pub entry_board: BoardEdge,
    pub covers: u64,
}

/// Score given to the farthest point of an arm blob as a fingertip: it is where the hand
/// ends, a fraction of a square from the true fingertip at best.
const BLOB_TIP_SCORE: f32 = 0.5;

/// The picture edge a ray from `p` along `d` leaves a `w` x `h` picture through.
pub fn exit_edge(p: [f32; 2], d: [f32; 2], w: f32, h: f32) -> ImageEdge {
    let mut best = (f32::MAX, nearest_image_edge(p, w, h));
    let mut consider = |t: f32, e: ImageEdge| {
        if t.is_finite() && t >= 0.0 && t < best.0 {
            best = (t, e);
        }
    };
    if d[0] < 0.0 {
        consider(-p[0] / d[0], ImageEdge::Left);
    }
    if d[0] > 0.0 {
        consider((w - p[0]) / d[0], ImageEdge::Right);
    }
    if d[1] < 0.0 {
        consider(-p[1] / d[1], ImageEdge::Top);
    }
    if d[1] > 0.0 {
        consider((h - p[1]) / d[1], ImageEdge::Bottom);
    }
    best.1
}

/// The picture edge nearest to a point.
pub fn nearest_image_edge(p: [f32; 2], w: f32, h: f32) -> ImageEdge {
    let d = [
        (p[0], ImageEdge::Left),
        (w - p[0], ImageEdge::Right),
        (p[1], ImageEdge::Top),
        (h - p[1], ImageEdge::Bottom),
    ];
    d.iter()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|x| x.1)
        .unwrap_or(ImageEdge::Right)
}

/// A track from the landmark model alone: the arm leaves the hand from the wrist, away
/// from the knuckles.
pub fn track_from_landmarks(hand: &LandmarkHand, w: f32, h: f32) -> HandTrack {
    let lm = &hand.landmarks;
    let wrist = [lm[0][0], lm[0][1]];
    let knuckle = [lm[9][0], lm[9][1]];
    let d = [wrist[0] - knuckle[0], wrist[1] - knuckle[1]];
    let entry = exit_edge(wrist, d, w, h);
    let pts: Vec<[f32; 2]> = lm.iter().map(|p| [p[0], p[1]]).collect();
    HandTrack {
        score: hand.presence,
        bbox: bounds(&pts),
        keypoints: Some(lm.iter().map(|p| [p[0], p[1], hand.presence]).collect()),
        tips: TIPS.iter().map(|&i| [lm[i][0], lm[i][1], hand.presence]).collect(),
        entry,
        source: HandSource::Landmarks,
        entry_point: exit_point(wrist, d, w, h),
        entry_board: None,
        covers: 0,
    }
}

fn exit_point(p: [f32; 2], d: [f32; 2], w: f32, h: f32) -> [f32; 2] {
    let n = (d[0] * d[0] + d[1] * d[1]).sqrt();
    if n < 1e-6 {
        return p;
    }
    let ts = [
        if d[0] < 0.0 { -p[0] / d[0] } else { f32::MAX },
        if d[0] > 0.0 { (w - p[0]) / d[0] } else { f32::MAX },
        if d[1] < 0.0 { -p[1] / d[1] } else { f32::MAX },
        if d[1] > 0.0 { (h - p[1]) / d[1] } else { f32::MAX },
    ];
    let t = ts.iter().copied().fold(f32::MAX, f32::min).max(0.0);
    if t == f32::MAX {
        p
    } else {
        [p[0] + t * d[0], p[1] + t * d[1]]
    }
}

/// A track from the occluder alone.
pub fn track_from_arm(arm: &ArmInImage, w: f32, h: f32) -> HandTrack {
    HandTrack {
        score: arm.strength.clamp(0.0, 1.0),
        bbox: arm.bbox,
        keypoints: None,
        tips: vec![[arm.tip[0], arm.tip[1], BLOB_TIP_SCORE]],
        entry: nearest_image_edge(arm.entry_point, w, h),
        source: HandSource::Occluder,
        entry_point: arm.entry_point,
        entry_board: Some(arm.entry_board),
        covers: arm.covers,
    }
}

/// Fuses landmark hands and arms. `matches[i]` is the arm that landmark hand `i` lies
/// on, if any (decided by the caller, which knows where each arm's cells are). A hand on
/// an arm takes the arm's entry edge and coverage and its own keypoints and tips; arms
/// without a landmark hand keep their farthest point as the tip.
pub fn fuse(hands: &[LandmarkHand], arms: &[ArmInImage], matches: &[Option<usize>], w: f32, h: f32) -> Vec<HandTrack> {
    let mut used = vec![false; arms.len()];
    let mut out = Vec::new();
    for (i, hand) in hands.iter().enumerate() {
        let mut t = track_from_landmarks(hand, w, h);
        if let Some(a) = matches.get(i).copied().flatten().filter(|&a| a < arms.len()) {
            let arm = &arms[a];
            used[a] = true;
            t.source = HandSource::Both;
            t.score = t.score.max(arm.strength);
            t.entry = nearest_image_edge(arm.entry_point, w, h);
            t.entry_point = arm.entry_point;
            t.entry_board = Some(arm.entry_board);
            t.covers = arm.covers;
            t.bbox = union(t.bbox, arm.bbox);
        }
        out.push(t);
    }
    out.extend(
        arms.iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(a, _)| track_from_arm(a, w, h)),
    );
    out
}

fn union(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    [a[0].min(b[0]), a[1].min(b[1]), a[2].max(b[2]), a[3].max(b[3])]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand() -> LandmarkHand {
        // Fingers pointing left, wrist on the right.
        let mut lm = vec![[300.0f32, 200.0, 0.0]; 21];
        lm[0] = [400.0, 200.0, 0.0];
        lm[9] = [330.0, 200.0, 0.0];
        for (k, &i) in TIPS.iter().enumerate() {
            lm[i] = [280.0, 180.0 + 10.0 * k as f32, 0.0];
        }
        LandmarkHand {
            presence: 0.9,
            landmarks: lm,
        }
    }

    fn arm() -> ArmInImage {
        ArmInImage {
            strength: 0.7,
            bbox: [290.0, 170.0, 640.0, 240.0],
            entry_point: [639.0, 210.0],
            tip: [290.0, 200.0],
            entry_board: BoardEdge::WhiteSide,
            covers: 0b1100,
        }
    }

    #[test]
    fn landmark_hand_enters_away_from_its_fingers() {
        let t = track_from_landmarks(&hand(), 640.0, 480.0);
        assert_eq!(t.entry, ImageEdge::Right);
        assert_eq!(t.tips.len(), 5);
        assert_eq!(t.source, HandSource::Landmarks);
        assert_eq!(t.entry_point, [640.0, 200.0]);
    }

    #[test]
    fn fusion_merges_matched_and_keeps_the_rest() {
        let out = fuse(&[hand()], &[arm(), arm()], &[Some(1)], 640.0, 480.0);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].source, HandSource::Both);
        assert_eq!(out[0].covers, 0b1100);
        assert_eq!(out[0].bbox[2], 640.0);
        assert_eq!(out[1].source, HandSource::Occluder);
        assert_eq!(out[1].tips, vec![[290.0, 200.0, BLOB_TIP_SCORE]]);
    }

    #[test]
    fn observation_maps_tips_to_the_board() {
        let h = crate::geometry::image_to_board([(507.0, 377.0), (506.0, 10.0), (140.0, 5.0), (137.0, 374.0)]).unwrap();
        let t = track_from_landmarks(&hand(), 640.0, 480.0);
        let o = t.to_observation(&h);
        assert_eq!(o.tips.len(), 5);
        // Entering from the image's right is White's side on this board.
        assert_eq!(o.entry, Some(BoardEdge::WhiteSide));
        assert_ne!(o.covers, 0);
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["entry"], "right");
        assert_eq!(json["source"], "landmarks");
        assert!(json.get("box").is_some() && json.get("entry_point").is_none());
    }
}
