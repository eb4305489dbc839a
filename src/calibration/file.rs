//! The calibration file (TOML): where the board is in the source picture, which side
//! White sits on, the optional lens model and clock regions, and how well it fits.
//!
//! Pure data (no OpenCV), so the tracker and tests can read calibrations.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::geometry::{self, Homography};

/// Which edge of the *source image* White sits at, or `unknown` (an empty board whose
/// orientation cannot be seen: then `corners_px` keep image order, starting top-left
/// and going clockwise: top-left, top-right, bottom-right, bottom-left). With
/// `unknown` the board geometry is right but the square names that follow from that
/// order are provisional (the top-left corner takes a1's place): no tool should report
/// a square name from such a calibration until White's side is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WhiteSide {
    Left,
    Right,
    Top,
    Bottom,
    Unknown,
}

/// A pinhole camera with radial-tangential distortion (OpenCV's model).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lens {
    /// fx, 0, cx, 0, fy, cy, 0, 0, 1 (row-major).
    pub camera_matrix: [f64; 9],
    /// k1, k2, p1, p2[, k3].
    pub distortion: Vec<f64>,
}

/// A region of the source picture outside the board, such as a clock button.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Region {
    pub name: String,
    /// `clock` for a player's clock button.
    pub kind: String,
    /// The player the region belongs to (`white`/`black`), if any.
    #[serde(default)]
    pub player: Option<String>,
    /// The region's outline in source pixels.
    pub polygon_px: Vec<[f64; 2]>,
}

/// A board calibration, as stored in `calibration/NAME.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The source the calibration was made from (informative).
    #[serde(default)]
    pub source: Option<String>,
    /// Source picture width and height in pixels.
    pub width: u32,
    pub height: u32,
    /// The four outer board corners in source pixels, in the order a1, h1, h8, a8
    /// (image order from the top-left when `white_side` is `unknown`). They may lie
    /// a few pixels outside the picture. With a `lens`, they are undistorted pixels
    /// (where a pinhole camera with the same camera matrix would see them).
    pub corners_px: [[f64; 2]; 4],
    pub white_side: WhiteSide,
    /// Source pixels (undistorted, when a lens is given) to board coordinates (see
    /// [`crate::geometry`]); derived from `corners_px`, kept for other tools.
    pub homography: [[f64; 3]; 3],
    /// Mean distance in pixels between the detected grid corners and the fitted grid.
    #[serde(default)]
    pub reprojection_error_px: Option<f64>,
    /// How the corners were found: `auto-empty`, `auto-pieces`, `manual`.
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default)]
    pub lens: Option<Lens>,
    #[serde(default)]
    pub regions: Vec<Region>,
}

/// Why a calibration file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationFileError {
    #[error("cannot read calibration file {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("calibration file {path} is not valid: {message}")]
    Parse { path: String, message: String },
    #[error("calibration file {path}: {message}")]
    Invalid { path: String, message: String },
    #[error("cannot write calibration file {path}: {source}")]
    Write { path: String, source: std::io::Error },
}

impl Calibration {
    /// A calibration from four corners (a1, h1, h8, a8 in source pixels).
    pub fn from_corners(
        width: u32,
        height: u32,
        corners_px: [[f64; 2]; 4],
        white_side: WhiteSide,
    ) -> Result<Calibration, geometry::GeometryError> {
        let h = geometry::image_to_board(corners_px.map(|[x, y]| (x, y)))?;
        Ok(Calibration {
            source: None,
            width,
            height,
            corners_px,
            white_side,
            homography: h.0,
            reprojection_error_px: None,
            method: Some("manual".into()),
            lens: None,
            regions: Vec::new(),
        })
    }

    /// Reads and checks a calibration file.
    pub fn load(path: &Path) -> Result<Calibration, CalibrationFileError> {
        let p = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| CalibrationFileError::Read {
            path: p.clone(),
            source,
        })?;
        let cal: Calibration = toml::from_str(&text).map_err(|e| CalibrationFileError::Parse {
            path: p.clone(),
            message: e.to_string(),
        })?;
        cal.check()
            .map_err(|message| CalibrationFileError::Invalid { path: p, message })?;
        Ok(cal)
    }

    /// Writes the calibration as TOML.
    pub fn save(&self, path: &Path) -> Result<(), CalibrationFileError> {
        let p = path.display().to_string();
        let text = toml::to_string_pretty(self).map_err(|e| CalibrationFileError::Parse {
            path: p.clone(),
            message: e.to_string(),
        })?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| CalibrationFileError::Write {
                path: p.clone(),
                source,
            })?;
        }
        std::fs::write(path, text).map_err(|source| CalibrationFileError::Write { path: p, source })
    }

    /// The checks a loaded file must pass: a real size, corners that make a board,
    /// and a homography that agrees with them.
    pub fn check(&self) -> Result<(), String> {
        if self.width == 0 || self.height == 0 {
            return Err("width and height must be positive".into());
        }
        if self.corners_px.iter().flatten().any(|v| !v.is_finite()) {
            return Err("corners_px holds a value that is not a number".into());
        }
        let h = geometry::image_to_board(self.corners_px.map(|[x, y]| (x, y)))
            .map_err(|e| format!("corners_px do not make a board: {e}"))?;
        let stored = Homography(self.homography);
        // The stored homography must map the corners where the recomputed one does.
        for [x, y] in self.corners_px {
            let (a, b) = (h.apply((x, y)), stored.apply((x, y)));
            match (a, b) {
                (Some(a), Some(b)) if (a.0 - b.0).abs() < 0.05 && (a.1 - b.1).abs() < 0.05 => {}
                _ => {
                    return Err(
                        "homography does not agree with corners_px (edit one, or delete the file and calibrate again)"
                            .into(),
                    );
                }
            }
        }
        Ok(())
    }

    /// Source pixels to board coordinates.
    pub fn image_to_board(&self) -> Homography {
        Homography(self.homography)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_toml_and_rejects_a_mismatched_homography() {
        let cal = Calibration::from_corners(
            640,
            480,
            [[507.0, 377.0], [506.0, 10.0], [140.0, 5.0], [137.0, 374.0]],
            WhiteSide::Right,
        )
        .unwrap();
        let text = toml::to_string_pretty(&cal).unwrap();
        let back: Calibration = toml::from_str(&text).unwrap();
        assert_eq!(back.check(), Ok(()));
        let mut bad = back.clone();
        bad.homography[0][2] += 3.0;
        assert!(bad.check().is_err());
    }
}
