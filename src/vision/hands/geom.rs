//! Pure geometry of MediaPipe's hand pipeline: SSD anchors, palm decoding, weighted
//! non-maximum suppression, letterbox removal, and the rotated hand crops (from a palm,
//! and from the previous frame's landmarks). No OpenCV, no ONNX Runtime: unit-tested here.

use std::f32::consts::{FRAC_PI_2, PI};

/// Side of the palm detector's square input.
pub const PALM_SIZE: usize = 192;
/// Side of the landmark model's square input.
pub const LANDMARK_SIZE: usize = 224;
/// Values per anchor in the palm detector's `boxes` output: box (4) + 7 keypoints x 2.
pub const PALM_VALUES: usize = 18;
/// Landmark indices of the five fingertips (thumb, index, middle, ring, little).
pub const TIPS: [usize; 5] = [4, 8, 12, 16, 20];

/// An SSD anchor centre in [0, 1] letterbox coordinates (fixed anchor size 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Anchor {
    pub x: f32,
    pub y: f32,
}

/// MediaPipe's palm anchors (`SsdAnchorsCalculator`: 4 layers, strides 8, 16, 16, 16,
/// aspect ratio 1 plus the interpolated-scale anchor, offset 0.5, fixed size). Layers
/// with the same stride share one grid: 24x24 x 2 + 12x12 x 6 = 2016 anchors.
pub fn palm_anchors() -> Vec<Anchor> {
    let strides = [8usize, 16, 16, 16];
    let mut anchors = Vec::with_capacity(2016);
    let mut layer = 0;
    while layer < strides.len() {
        let stride = strides[layer];
        let mut per_cell = 0;
        while layer < strides.len() && strides[layer] == stride {
            per_cell += 2; // aspect ratio 1.0 and the interpolated scale
            layer += 1;
        }
        let cells = PALM_SIZE.div_ceil(stride);
        for y in 0..cells {
            for x in 0..cells {
                for _ in 0..per_cell {
                    anchors.push(Anchor {
                        x: (x as f32 + 0.5) / cells as f32,
                        y: (y as f32 + 0.5) / cells as f32,
                    });
                }
            }
        }
    }
    anchors
}

/// A palm found by the detector, in whatever frame its coordinates were last mapped to
/// (letterbox [0, 1] after decoding, source pixels after [`Letterbox::to_source`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Palm {
    pub score: f32,
    /// xmin, ymin, xmax, ymax.
    pub bbox: [f32; 4],
    /// 0 wrist, 1 index MCP, 2 middle MCP, 3 ring MCP, 4 pinky MCP, 5-6 thumb.
    pub keypoints: [[f32; 2]; 7],
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x.clamp(-100.0, 100.0)).exp())
}

/// Decodes the palm detector's raw outputs (`boxes` 2016 x 18, `scores` 2016 logits)
/// into palms above `min_score`, in letterbox [0, 1] coordinates.
pub fn decode_palms(boxes: &[f32], scores: &[f32], anchors: &[Anchor], min_score: f32) -> Vec<Palm> {
    let s = PALM_SIZE as f32;
    let mut out = Vec::new();
    for (i, a) in anchors.iter().enumerate() {
        let (Some(&logit), Some(raw)) = (scores.get(i), boxes.get(i * PALM_VALUES..(i + 1) * PALM_VALUES)) else {
            break;
        };
        let score = sigmoid(logit);
        if score < min_score {
            continue;
        }
        let (cx, cy) = (raw[0] / s + a.x, raw[1] / s + a.y);
        let (w, h) = (raw[2] / s, raw[3] / s);
        let mut keypoints = [[0.0; 2]; 7];
        for (k, kp) in keypoints.iter_mut().enumerate() {
            *kp = [raw[4 + 2 * k] / s + a.x, raw[5 + 2 * k] / s + a.y];
        }
        out.push(Palm {
            score,
            bbox: [cx - w / 2.0, cy - h / 2.0, cx + w / 2.0, cy + h / 2.0],
            keypoints,
        });
    }
    out
}

/// Intersection over union of two `[xmin, ymin, xmax, ymax]` boxes.
pub fn iou(a: &[f32; 4], b: &[f32; 4]) -> f32 {
    let iw = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let ih = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let inter = iw * ih;
    let union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
    if union <= 0.0 { 0.0 } else { inter / union }
}

/// MediaPipe's weighted non-maximum suppression: the best palm and every palm
/// overlapping it by more than `min_iou` are merged into one, boxes and keypoints
/// averaged with the scores as weights; the merged palm keeps the best score.
pub fn weighted_nms(mut palms: Vec<Palm>, min_iou: f32) -> Vec<Palm> {
    palms.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut out = Vec::new();
    while let Some(best) = palms.first().copied() {
        let (group, rest): (Vec<Palm>, Vec<Palm>) = palms.into_iter().partition(|p| iou(&best.bbox, &p.bbox) > min_iou);
        palms = rest;
        // `best` overlaps itself, so the group is never empty; guard anyway.
        let total: f32 = group.iter().map(|p| p.score).sum();
        if group.len() <= 1 || total <= 0.0 {
            out.push(best);
            continue;
        }
        let mut merged = Palm {
            score: best.score,
            bbox: [0.0; 4],
            keypoints: [[0.0; 2]; 7],
        };
        for p in &group {
            let w = p.score / total;
            for k in 0..4 {
                merged.bbox[k] += w * p.bbox[k];
            }
            for k in 0..7 {
                merged.keypoints[k][0] += w * p.keypoints[k][0];
                merged.keypoints[k][1] += w * p.keypoints[k][1];
            }
        }
        out.push(merged);
    }
    out
}

/// How a source frame sits inside a square model input (aspect kept, centred, zero padding).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Letterbox {
    pub src_w: f32,
    pub src_h: f32,
    /// Size of the scaled frame inside the input, in input pixels.
    pub inner_w: usize,
    pub inner_h: usize,
    /// Offset of the scaled frame inside the input, in input pixels.
    pub left: usize,
    pub top: usize,
    pub side: usize,
}

impl Letterbox {
    pub fn new(src_w: usize, src_h: usize, side: usize) -> Letterbox {
        let scale = side as f32 / src_w.max(src_h).max(1) as f32;
        let inner_w = ((src_w as f32 * scale).round() as usize).clamp(1, side);
        let inner_h = ((src_h as f32 * scale).round() as usize).clamp(1, side);
        Letterbox {
            src_w: src_w as f32,
            src_h: src_h as f32,
            inner_w,
            inner_h,
            left: (side - inner_w) / 2,
            top: (side - inner_h) / 2,
            side,
        }
    }

    /// Letterbox [0, 1] coordinates to source pixels.
    pub fn to_source(&self, [x, y]: [f32; 2]) -> [f32; 2] {
        let s = self.side as f32;
        [
            (x * s - self.left as f32) / self.inner_w as f32 * self.src_w,
            (y * s - self.top as f32) / self.inner_h as f32 * self.src_h,
        ]
    }

    /// A palm from letterbox coordinates to source pixels.
    pub fn palm_to_source(&self, p: &Palm) -> Palm {
        let [x0, y0] = self.to_source([p.bbox[0], p.bbox[1]]);
        let [x1, y1] = self.to_source([p.bbox[2], p.bbox[3]]);
        Palm {
            score: p.score,
            bbox: [x0, y0, x1, y1],
            keypoints: p.keypoints.map(|k| self.to_source(k)),
        }
    }
}

/// A rotated square crop in source pixels: centre, side, and the rotation (radians)
/// that turns the hand upright (wrist at the bottom, fingers up).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HandRect {
    pub cx: f32,
    pub cy: f32,
    pub side: f32,
    pub rotation: f32,
}

fn normalize_radians(a: f32) -> f32 {
    a - 2.0 * PI * ((a + PI) / (2.0 * PI)).floor()
}

/// The rotation that maps the direction `from -> to` (image y down) onto "up".
fn rotation_up(from: [f32; 2], to: [f32; 2]) -> f32 {
    normalize_radians(FRAC_PI_2 - (-(to[1] - from[1])).atan2(to[0] - from[0]))
}

/// MediaPipe's `RectTransformationCalculator` in pixels: shift along the rotated axes
/// (in units of the box size), make square on the long side, scale.
fn transform_rect(cx: f32, cy: f32, w: f32, h: f32, rotation: f32, scale: f32, shift_y: f32) -> HandRect {
    let (s, c) = rotation.sin_cos();
    let (dx, dy) = (-h * shift_y * s, h * shift_y * c);
    HandRect {
        cx: cx + dx,
        cy: cy + dy,
        side: w.max(h) * scale,
        rotation,
    }
}

/// The landmark crop around a palm in source pixels (MediaPipe's palm-to-hand rect:
/// rotation from the wrist to the middle-finger MCP, 2.6 x the box, shifted half a box
/// towards the fingers).
pub fn rect_from_palm(p: &Palm) -> HandRect {
    let rotation = rotation_up(p.keypoints[0], p.keypoints[2]);
    let (cx, cy) = ((p.bbox[0] + p.bbox[2]) / 2.0, (p.bbox[1] + p.bbox[3]) / 2.0);
    transform_rect(
        cx,
        cy,
        p.bbox[2] - p.bbox[0],
        p.bbox[3] - p.bbox[1],
        rotation,
        2.6,
        -0.5,
    )
}

/// The next frame's crop from this frame's 21 landmarks in source pixels (MediaPipe's
/// `HandLandmarksToRectCalculator`: rotation from the wrist to the mean of the index,
/// middle and ring MCPs; the rotated box of the palm and lower-finger landmarks; then
/// 2.0 x, shifted a tenth of the box towards the fingers).
pub fn rect_from_landmarks(lm: &[[f32; 3]]) -> Option<HandRect> {
    const PARTIAL: [usize; 12] = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18];
    if lm.len() < 21 {
        return None;
    }
    let p = |i: usize| [lm[i][0], lm[i][1]];
    let mid = [(p(5)[0] + p(13)[0]) / 2.0, (p(5)[1] + p(13)[1]) / 2.0];
    let knuckles = [(mid[0] + p(9)[0]) / 2.0, (mid[1] + p(9)[1]) / 2.0];
    let rotation = rotation_up(p(0), knuckles);
    let pts: Vec<[f32; 2]> = PARTIAL.iter().map(|&i| p(i)).collect();
    let (ax, ay) = bounds_centre(&pts);
    let (s, c) = (-rotation).sin_cos();
    let projected: Vec<[f32; 2]> = pts
        .iter()
        .map(|q| [(q[0] - ax) * c - (q[1] - ay) * s, (q[0] - ax) * s + (q[1] - ay) * c])
        .collect();
    let (pcx, pcy) = bounds_centre(&projected);
    let [x0, y0, x1, y1] = bounds(&projected);
    let (s, c) = rotation.sin_cos();
    let cx = pcx * c - pcy * s + ax;
    let cy = pcx * s + pcy * c + ay;
    Some(transform_rect(cx, cy, x1 - x0, y1 - y0, rotation, 2.0, -0.1))
}

/// `[xmin, ymin, xmax, ymax]` of points.
pub fn bounds(pts: &[[f32; 2]]) -> [f32; 4] {
    pts.iter().fold([f32::MAX, f32::MAX, f32::MIN, f32::MIN], |b, q| {
        [b[0].min(q[0]), b[1].min(q[1]), b[2].max(q[0]), b[3].max(q[1])]
    })
}

fn bounds_centre(pts: &[[f32; 2]]) -> (f32, f32) {
    let b = bounds(pts);
    ((b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0)
}

impl HandRect {
    /// The 2x3 affine map from crop pixels `(u, v)` of a `size` x `size` model input to
    /// source pixels (for a warp with the inverse-map flag).
    pub fn crop_to_source(&self, size: usize) -> [[f64; 3]; 2] {
        let k = (self.side / size as f32) as f64;
        let (s, c) = (self.rotation as f64).sin_cos();
        let half = self.side as f64 / 2.0;
        let (cx, cy) = (self.cx as f64, self.cy as f64);
        [
            [c * k, -s * k, cx - c * half + s * half],
            [s * k, c * k, cy - s * half - c * half],
        ]
    }

    /// A point of the crop (in `size` pixels) in source pixels.
    pub fn project(&self, size: usize, [u, v]: [f32; 2]) -> [f32; 2] {
        let m = self.crop_to_source(size);
        let (u, v) = (u as f64, v as f64);
        [
            (m[0][0] * u + m[0][1] * v + m[0][2]) as f32,
            (m[1][0] * u + m[1][1] * v + m[1][2]) as f32,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_match_mediapipe_layout() {
        let a = palm_anchors();
        assert_eq!(a.len(), 2016);
        assert_eq!(
            a[0],
            Anchor {
                x: 0.5 / 24.0,
                y: 0.5 / 24.0
            }
        );
        assert_eq!(a[1], a[0]);
        assert_eq!(a[2].x, 1.5 / 24.0);
        assert_eq!(
            a[1152],
            Anchor {
                x: 0.5 / 12.0,
                y: 0.5 / 12.0
            }
        );
        assert_eq!(
            a[2015],
            Anchor {
                x: 11.5 / 12.0,
                y: 11.5 / 12.0
            }
        );
    }

    #[test]
    fn decode_applies_anchor_offsets_and_threshold() {
        let anchors = vec![Anchor { x: 0.5, y: 0.25 }, Anchor { x: 0.1, y: 0.1 }];
        let mut boxes = vec![0.0; 36];
        boxes[0] = 19.2; // +0.1 in x
        boxes[2] = 38.4; // w = 0.2
        boxes[3] = 19.2; // h = 0.1
        boxes[4] = -9.6; // wrist x -0.05
        let palms = decode_palms(&boxes, &[2.0, -3.0], &anchors, 0.5);
        assert_eq!(palms.len(), 1);
        let p = palms[0];
        assert!((p.score - 0.8808).abs() < 1e-3);
        let want = [0.5, 0.2, 0.7, 0.3];
        assert!(
            p.bbox.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6),
            "{:?}",
            p.bbox
        );
        assert!((p.keypoints[0][0] - 0.45).abs() < 1e-6);
    }

    #[test]
    fn weighted_nms_merges_overlaps_and_keeps_separate_palms() {
        let palm = |s, x0: f32| Palm {
            score: s,
            bbox: [x0, 0.0, x0 + 1.0, 1.0],
            keypoints: [[x0, 0.0]; 7],
        };
        let out = weighted_nms(vec![palm(0.6, 0.1), palm(0.9, 0.0), palm(0.7, 5.0)], 0.3);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].score, 0.9);
        assert!((out[0].bbox[0] - 0.06 / 1.5).abs() < 1e-6);
        assert_eq!(out[1].bbox[0], 5.0);
    }

    #[test]
    fn letterbox_round_trips_a_wide_frame() {
        let lb = Letterbox::new(640, 480, 192);
        assert_eq!((lb.inner_w, lb.inner_h, lb.left, lb.top), (192, 144, 0, 24));
        let p = lb.to_source([0.5, 24.0 / 192.0]);
        assert!((p[0] - 320.0).abs() < 1e-3 && p[1].abs() < 1e-3);
    }

    #[test]
    fn rects_turn_the_hand_upright() {
        // A hand pointing left (wrist right of the knuckles): rotate by -90 degrees... as MediaPipe does.
        let mut palm = Palm {
            score: 1.0,
            bbox: [90.0, 90.0, 110.0, 110.0],
            keypoints: [[0.0; 2]; 7],
        };
        palm.keypoints[0] = [110.0, 100.0];
        palm.keypoints[2] = [90.0, 100.0];
        let r = rect_from_palm(&palm);
        assert!(
            (r.rotation - (-FRAC_PI_2)).abs() < 1e-5 || (r.rotation - 3.0 * FRAC_PI_2).abs() < 1e-5,
            "{}",
            r.rotation
        );
        assert!((r.side - 52.0).abs() < 1e-4);
        // Shifted towards the fingers (to the left).
        assert!((r.cx - 90.0).abs() < 1e-3 && (r.cy - 100.0).abs() < 1e-3, "{r:?}");
        // The crop's top centre (fingers) lies left of the centre in the source.
        let top = r.project(224, [112.0, 0.0]);
        assert!(top[0] < r.cx - 20.0 && (top[1] - r.cy).abs() < 1e-3, "{top:?}");
        // An upright hand needs no rotation.
        palm.keypoints[2] = [110.0, 80.0];
        assert!(rect_from_palm(&palm).rotation.abs() < 1e-5);
    }

    #[test]
    fn landmark_rect_follows_the_hand() {
        // An upright hand: wrist at the bottom, knuckles 40 px above.
        let mut lm = vec![[100.0f32, 100.0, 0.0]; 21];
        lm[0] = [100.0, 140.0, 0.0];
        for i in [5, 9, 13] {
            lm[i] = [100.0, 100.0, 0.0];
        }
        lm[17] = [80.0, 100.0, 0.0];
        lm[1] = [120.0, 120.0, 0.0];
        let r = rect_from_landmarks(&lm).unwrap();
        assert!(r.rotation.abs() < 1e-5);
        assert!((r.side - 80.0).abs() < 1e-3, "{r:?}");
        assert!(rect_from_landmarks(&lm[..10]).is_none());
    }
}
