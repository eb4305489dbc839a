//! MediaPipe's palm detector and hand landmark model under ONNX Runtime: preprocessing
//! (letterbox / rotated crop to RGB in [0, 1]) and the runs. The pure decoding lives in
//! [`super::geom`].

use std::path::Path;

use opencv::core::{BORDER_REPLICATE, Mat, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;
use ort::value::TensorRef;

use super::HandsError;
use super::fusion::LandmarkHand;
use super::geom::{self, Anchor, HandRect, LANDMARK_SIZE, Letterbox, PALM_SIZE, PALM_VALUES, Palm};
use crate::vision::onnx::{Model, ModelError, TensorSpec};

/// Which of MediaPipe's two model sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Variant {
    #[default]
    Full,
    Lite,
}

impl Variant {
    fn suffix(self) -> &'static str {
        match self {
            Variant::Full => "full",
            Variant::Lite => "lite",
        }
    }
}

impl std::str::FromStr for Variant {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "full" => Ok(Variant::Full),
            "lite" => Ok(Variant::Lite),
            _ => Err(format!("unknown model variant `{s}` (full or lite)")),
        }
    }
}

/// Weighted NMS overlap (MediaPipe's palm detection graph).
const PALM_NMS_IOU: f32 = 0.3;

/// RGB in [0, 1], NHWC, from an 8-bit BGR image of exactly `side` x `side` pixels,
/// placed at `(left, top)` inside a zero `size` x `size` input.
fn bgr_to_input(img: &Mat, size: usize, left: usize, top: usize) -> Result<Vec<f32>, HandsError> {
    let (w, h) = (img.cols() as usize, img.rows() as usize);
    let bytes = if img.is_continuous() {
        img.data_bytes()?.to_vec()
    } else {
        img.try_clone()?.data_bytes()?.to_vec()
    };
    let mut out = vec![0.0f32; size * size * 3];
    for y in 0..h.min(size - top) {
        for x in 0..w.min(size - left) {
            let s = (y * w + x) * 3;
            let d = ((y + top) * size + x + left) * 3;
            out[d] = bytes[s + 2] as f32 / 255.0;
            out[d + 1] = bytes[s + 1] as f32 / 255.0;
            out[d + 2] = bytes[s] as f32 / 255.0;
        }
    }
    Ok(out)
}

/// The palm detector.
pub struct PalmModel {
    model: Model,
    anchors: Vec<Anchor>,
}

impl PalmModel {
    pub const INPUTS: [TensorSpec; 1] = [TensorSpec {
        name: "image",
        shape: &[1, 192, 192, 3],
    }];
    pub const OUTPUTS: [TensorSpec; 2] = [
        TensorSpec {
            name: "boxes",
            shape: &[1, 2016, 18],
        },
        TensorSpec {
            name: "scores",
            shape: &[1, 2016, 1],
        },
    ];

    pub fn load(dir: &Path, variant: Variant, threads: usize) -> Result<PalmModel, ModelError> {
        let path = dir.join(format!("palm_detection_{}.onnx", variant.suffix()));
        let model = Model::load(&path, &Self::INPUTS, &Self::OUTPUTS, threads)?;
        Ok(PalmModel {
            model,
            anchors: geom::palm_anchors(),
        })
    }

    /// Palms in source pixels, best first.
    pub fn run(&mut self, frame: &Mat, min_score: f32) -> Result<Vec<Palm>, HandsError> {
        let lb = Letterbox::new(frame.cols() as usize, frame.rows() as usize, PALM_SIZE);
        let mut small = Mat::default();
        let size = Size::new(lb.inner_w as i32, lb.inner_h as i32);
        imgproc::resize(frame, &mut small, size, 0.0, 0.0, imgproc::INTER_AREA)?;
        let input = bgr_to_input(&small, PALM_SIZE, lb.left, lb.top)?;
        let m = &mut self.model;
        let tensor =
            TensorRef::from_array_view(([1usize, PALM_SIZE, PALM_SIZE, 3], &input[..])).map_err(|e| m.run_error(e))?;
        let err = |e: ort::Error, name: &str| ModelError::Run {
            name: name.to_string(),
            reason: e.to_string(),
        };
        let name = m.name.clone();
        let outputs = m
            .session
            .run(ort::inputs!["image" => tensor])
            .map_err(|e| err(e, &name))?;
        let (_, boxes) = outputs["boxes"]
            .try_extract_tensor::<f32>()
            .map_err(|e| err(e, &name))?;
        let (_, scores) = outputs["scores"]
            .try_extract_tensor::<f32>()
            .map_err(|e| err(e, &name))?;
        if boxes.len() != self.anchors.len() * PALM_VALUES || scores.len() != self.anchors.len() {
            return Err(ModelError::Run {
                name,
                reason: format!("unexpected output sizes {} / {}", boxes.len(), scores.len()),
            }
            .into());
        }
        let palms = geom::weighted_nms(
            geom::decode_palms(boxes, scores, &self.anchors, min_score),
            PALM_NMS_IOU,
        );
        Ok(palms.iter().map(|p| lb.palm_to_source(p)).collect())
    }
}

/// The hand landmark model.
pub struct LandmarkModel {
    model: Model,
}

impl LandmarkModel {
    pub const INPUTS: [TensorSpec; 1] = [TensorSpec {
        name: "image",
        shape: &[1, 224, 224, 3],
    }];
    pub const OUTPUTS: [TensorSpec; 2] = [
        TensorSpec {
            name: "landmarks",
            shape: &[1, 63],
        },
        TensorSpec {
            name: "presence",
            shape: &[1, 1],
        },
    ];

    pub fn load(dir: &Path, variant: Variant, threads: usize) -> Result<LandmarkModel, ModelError> {
        let path = dir.join(format!("hand_landmark_{}.onnx", variant.suffix()));
        Ok(LandmarkModel {
            model: Model::load(&path, &Self::INPUTS, &Self::OUTPUTS, threads)?,
        })
    }

    /// The 21 landmarks (source pixels) and presence of the hand in a rotated crop.
    pub fn run(&mut self, frame: &Mat, rect: &HandRect) -> Result<LandmarkHand, HandsError> {
        let m = rect.crop_to_source(LANDMARK_SIZE);
        let matrix = Mat::from_slice_2d(&m)?;
        let mut crop = Mat::default();
        let size = Size::new(LANDMARK_SIZE as i32, LANDMARK_SIZE as i32);
        imgproc::warp_affine(
            frame,
            &mut crop,
            &matrix,
            size,
            imgproc::INTER_LINEAR | imgproc::WARP_INVERSE_MAP,
            BORDER_REPLICATE,
            Scalar::all(0.0),
        )?;
        let input = bgr_to_input(&crop, LANDMARK_SIZE, 0, 0)?;
        let model = &mut self.model;
        let name = model.name.clone();
        let err = |e: ort::Error| ModelError::Run {
            name: name.clone(),
            reason: e.to_string(),
        };
        let tensor =
            TensorRef::from_array_view(([1usize, LANDMARK_SIZE, LANDMARK_SIZE, 3], &input[..])).map_err(err)?;
        let outputs = model.session.run(ort::inputs!["image" => tensor]).map_err(err)?;
        let (_, lm) = outputs["landmarks"].try_extract_tensor::<f32>().map_err(err)?;
        let (_, presence) = outputs["presence"].try_extract_tensor::<f32>().map_err(err)?;
        let landmarks = lm
            .chunks_exact(3)
            .map(|p| {
                let [x, y] = rect.project(LANDMARK_SIZE, [p[0], p[1]]);
                [x, y, p[2]]
            })
            .collect::<Vec<_>>();
        if landmarks.len() != 21 {
            return Err(ModelError::Run {
                name,
                reason: format!("{} landmarks, expected 21", landmarks.len()),
            }
            .into());
        }
        Ok(LandmarkHand {
            presence: presence.first().copied().unwrap_or(0.0),
            landmarks,
        })
    }
}
