//! The piece reader: per square of the rectified view, the probabilities of empty /
//! white piece / black piece and of the piece type, from the ONNX model in
//! `models/pieces/` (see its README for inputs, outputs, training and figures), with a
//! light per-board adaptation fitted on confirmed positions ([`adapt`]).
//!
//! One reader belongs to one board (one game): its adaptation is that board's.

pub mod adapt;
pub mod board;
pub mod measure;

use std::path::Path;

use opencv::core::{CV_8UC1, CV_8UC3, Mat};
use opencv::prelude::*;
use ort::value::Tensor;
use serde::Serialize;

use crate::calibration::rectify::Rectified;
use crate::geometry::RectifiedView;
use crate::observation::SquareProbs;
use crate::vision::onnx::{Model, ModelError, TensorSpec};

pub use adapt::{ConfirmedPlacement, FitReport};
pub use board::{probs_of, settled_board_strings};

use adapt::{Residual, Sample};

/// The model file shipped in the repository.
pub const DEFAULT_MODEL: &str = "models/pieces/pieces.onnx";

const SIDE: i64 = 320;
const INPUTS: [TensorSpec; 1] = [TensorSpec {
    name: "image",
    shape: &[-1, 4, SIDE, SIDE],
}];
const OUTPUTS: [TensorSpec; 3] = [
    TensorSpec {
        name: "occupancy",
        shape: &[-1, 64, 3],
    },
    TensorSpec {
        name: "types",
        shape: &[-1, 64, 6],
    },
    TensorSpec {
        name: "features",
        shape: &[-1, 64, -1],
    },
];
/// Confirmed positions kept for the adaptation: the first (the game start, with every
/// class well represented) and the latest few.
const KEEP_LATEST: usize = 3;

#[derive(Debug, thiserror::Error)]
pub enum PiecesError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("the piece model reads the standard rectified view (320x320 BGR + known mask); got {0}")]
    WrongView(String),
    #[error("image data: {0}")]
    OpenCv(#[from] opencv::Error),
    #[error("model output `{name}` has {got} values, expected {want}")]
    Output {
        name: &'static str,
        got: usize,
        want: usize,
    },
}

/// One frame's reading.
#[derive(Debug, Clone, Serialize)]
pub struct PieceReading {
    /// What the tracker gets: adapted when the adaptation is active, else the plain network.
    pub probs: SquareProbs,
    /// The plain network's output.
    pub plain: SquareProbs,
    /// Per-square feature vectors (64 x F), a1 first.
    #[serde(skip)]
    pub features: Vec<Vec<f32>>,
    /// Whether `probs` went through the adaptation.
    pub adapted: bool,
}

/// What one call to [`PieceReader::adapt`] fitted.
#[derive(Debug, Clone, Serialize)]
pub struct AdaptReport {
    pub occupancy: FitReport,
    pub types: FitReport,
    /// Confirmed positions the fit used.
    pub positions: usize,
}

#[derive(Default)]
struct Adaptation {
    scale: Vec<f32>,
    /// Per confirmed position: occupancy samples (64) and type samples (occupied squares).
    first: Option<(Vec<Sample>, Vec<Sample>)>,
    latest: Vec<(Vec<Sample>, Vec<Sample>)>,
    occupancy: Option<Residual>,
    types: Option<Residual>,
}

/// The network's three outputs for one frame: occupancy, types, features (64 rows each).
type RawOutputs = (Vec<[f32; 3]>, Vec<[f32; 6]>, Vec<Vec<f32>>);

pub struct PieceReader {
    model: Model,
    adaptation: Adaptation,
}

impl PieceReader {
    /// Loads the piece model (one inference thread).
    pub fn new(model_path: &Path) -> Result<PieceReader, PiecesError> {
        PieceReader::with_threads(model_path, 1)
    }

    pub fn with_threads(model_path: &Path, threads: usize) -> Result<PieceReader, PiecesError> {
        let model = Model::load(model_path, &INPUTS, &OUTPUTS, threads)?;
        Ok(PieceReader {
            model,
            adaptation: Adaptation::default(),
        })
    }

    /// Reads every square of one rectified frame.
    pub fn read(&mut self, frame: &Rectified) -> Result<PieceReading, PiecesError> {
        let input = input_tensor(frame)?;
        let (occupancy, types, features) = self.run(input)?;
        let plain = SquareProbs {
            occupancy,
            types: Some(types),
        };
        let (probs, adapted) = self.adapted(&plain, &features);
        Ok(PieceReading {
            probs,
            plain,
            features,
            adapted,
        })
    }

    fn run(&mut self, input: Vec<f32>) -> Result<RawOutputs, PiecesError> {
        let tensor = Tensor::from_array(([1usize, 4, SIDE as usize, SIDE as usize], input.into_boxed_slice()))
            .map_err(|e| self.model.run_error(e))?;
        let model = &mut self.model;
        let outputs = model
            .session
            .run(ort::inputs!["image" => tensor])
            .map_err(|e| ModelError::Run {
                name: model.name.clone(),
                reason: e.to_string(),
            })?;
        let extract = |name: &'static str| -> Result<Vec<f32>, PiecesError> {
            let (_, data) = outputs[name].try_extract_tensor::<f32>().map_err(|e| ModelError::Run {
                name: "pieces".into(),
                reason: e.to_string(),
            })?;
            Ok(data.to_vec())
        };
        let occ = extract("occupancy")?;
        let typ = extract("types")?;
        let feat = extract("features")?;
        check_len("occupancy", occ.len(), 64 * 3)?;
        check_len("types", typ.len(), 64 * 6)?;
        if feat.is_empty() || feat.len() % 64 != 0 {
            return Err(PiecesError::Output {
                name: "features",
                got: feat.len(),
                want: 64,
            });
        }
        let dims = feat.len() / 64;
        Ok((
            occ.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
            typ.chunks_exact(6)
                .map(|c| [c[0], c[1], c[2], c[3], c[4], c[5]])
                .collect(),
            feat.chunks_exact(dims).map(<[f32]>::to_vec).collect(),
        ))
    }

    fn adapted(&self, plain: &SquareProbs, features: &[Vec<f32>]) -> (SquareProbs, bool) {
        let a = &self.adaptation;
        if a.occupancy.is_none() && a.types.is_none() {
            return (plain.clone(), false);
        }
        let mut probs = plain.clone();
        for (i, f) in features.iter().enumerate() {
            let f = standardise(f, &a.scale);
            if let Some(layer) = &a.occupancy {
                let p = layer.apply(&f, &plain.occupancy[i]);
                probs.occupancy[i] = [p[0], p[1], p[2]];
            }
            if let (Some(layer), Some(types), Some(out)) = (&a.types, &plain.types, probs.types.as_mut()) {
                let p = layer.apply(&f, &types[i]);
                out[i] = [p[0], p[1], p[2], p[3], p[4], p[5]];
            }
        }
        (probs, true)
    }

    /// Fits (first call) or refreshes (later calls) the per-board adaptation from a
    /// reading of a settled frame and the placement that is confirmed to be on the board
    /// in it. Only [`ConfirmedPlacement`]s are accepted: the reader never learns from
    /// its own guesses. When the fit is poor the plain network stays in use; the report
    /// says which.
    pub fn adapt(&mut self, reading: &PieceReading, placement: &ConfirmedPlacement) -> AdaptReport {
        let a = &mut self.adaptation;
        if a.first.is_none() {
            a.scale = adapt::feature_scale(&reading.features);
        }
        let occ_labels = placement.occupancy_labels();
        let type_labels = placement.type_labels();
        let mut occ = Vec::with_capacity(64);
        let mut typ = Vec::new();
        for (i, f) in reading.features.iter().enumerate() {
            let features = standardise(f, &a.scale);
            occ.push(Sample {
                features: features.clone(),
                probs: reading.plain.occupancy[i].to_vec(),
                label: occ_labels[i],
            });
            if let (Some(label), Some(types)) = (type_labels[i], &reading.plain.types) {
                typ.push(Sample {
                    features,
                    probs: types[i].to_vec(),
                    label,
                });
            }
        }
        if a.first.is_none() {
            a.first = Some((occ, typ));
        } else {
            a.latest.push((occ, typ));
            if a.latest.len() > KEEP_LATEST {
                a.latest.remove(0);
            }
        }
        let kept: Vec<&(Vec<Sample>, Vec<Sample>)> = a.first.iter().chain(a.latest.iter()).collect();
        let occ_samples: Vec<Sample> = kept.iter().flat_map(|p| p.0.iter().cloned()).collect();
        let type_samples: Vec<Sample> = kept.iter().flat_map(|p| p.1.iter().cloned()).collect();
        let (occ_layer, occupancy) = adapt::fit_checked(&occ_samples, 3);
        let (type_layer, types) = adapt::fit_checked(&type_samples, 6);
        a.occupancy = occ_layer;
        a.types = type_layer;
        AdaptReport {
            occupancy,
            types,
            positions: kept.len(),
        }
    }

    /// Forgets the adaptation (a new game on this board starts from the plain network).
    pub fn reset_adaptation(&mut self) {
        self.adaptation = Adaptation::default();
    }
}

fn standardise(f: &[f32], scale: &[f32]) -> Vec<f32> {
    f.iter().zip(scale).map(|(v, s)| v / s).collect()
}

fn check_len(name: &'static str, got: usize, want: usize) -> Result<(), PiecesError> {
    if got == want {
        Ok(())
    } else {
        Err(PiecesError::Output { name, got, want })
    }
}

/// The network's input: B, G, R in 0..1 with unknown pixels zeroed, and the known mask,
/// planar [1, 4, 320, 320].
fn input_tensor(frame: &Rectified) -> Result<Vec<f32>, PiecesError> {
    let side = SIDE as i32;
    let (image, known) = (&frame.image, &frame.known);
    if frame.view != RectifiedView::STANDARD
        || image.rows() != side
        || image.cols() != side
        || image.typ() != CV_8UC3
        || known.rows() != side
        || known.cols() != side
        || known.typ() != CV_8UC1
    {
        return Err(PiecesError::WrongView(format!(
            "view {:?}, image {}x{} type {}, known {}x{} type {}",
            frame.view,
            image.cols(),
            image.rows(),
            image.typ(),
            known.cols(),
            known.rows(),
            known.typ()
        )));
    }
    let image = continuous(image)?;
    let known = continuous(known)?;
    let px = image.data_bytes()?;
    let kn = known.data_bytes()?;
    let n = (SIDE * SIDE) as usize;
    let mut out = vec![0.0f32; 4 * n];
    for i in 0..n {
        if kn[i] > 0 {
            for c in 0..3 {
                out[c * n + i] = f32::from(px[3 * i + c]) / 255.0;
            }
            out[3 * n + i] = 1.0;
        }
    }
    Ok(out)
}

fn continuous(m: &Mat) -> opencv::Result<Mat> {
    if m.is_continuous() {
        Ok(m.clone())
    } else {
        m.try_clone()
    }
}
