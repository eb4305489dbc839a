//! The rectified view of a frame: the board seen from straight above, a1 at the
//! bottom left, with a margin (see [`crate::geometry::RectifiedView`]). Pixels that
//! fall outside the source picture are marked unknown in `known`, not painted black.

use opencv::core::{BORDER_CONSTANT, CV_8UC1, Mat, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;

use crate::calibration::Calibration;
use crate::calibration::file::Lens;
use crate::geometry::{Homography, RectifiedView};

/// A rectified frame.
pub struct Rectified {
    /// BGR, `view.size()` square.
    pub image: Mat,
    /// 255 where the pixel came from the source picture, 0 where it is unknown.
    pub known: Mat,
    pub view: RectifiedView,
}

/// Precomputed source-to-rectified map for one calibration and view, so that the
/// per-frame work is one warp.
pub struct Rectifier {
    view: RectifiedView,
    warp: Warp,
    known: Mat,
}

/// A plain perspective warp, or (with a lens model) a per-pixel map that undoes the
/// lens distortion in the same step.
enum Warp {
    Perspective(Mat),
    Remap(Mat, Mat),
}

impl Warp {
    fn apply(&self, src: &Mat, dst: &mut Mat, size: Size, interpolation: i32) -> opencv::Result<()> {
        match self {
            Warp::Perspective(m) => {
                imgproc::warp_perspective(src, dst, m, size, interpolation, BORDER_CONSTANT, Scalar::all(0.0))
            }
            Warp::Remap(x, y) => imgproc::remap(src, dst, x, y, interpolation, BORDER_CONSTANT, Scalar::all(0.0)),
        }
    }
}

/// Maps from rectified pixels to distorted source pixels: rectified -> undistorted
/// source (inverse homography) -> distorted source (the lens model).
fn lens_maps(source_to_view: &Homography, lens: &Lens, view: RectifiedView) -> opencv::Result<(Mat, Mat)> {
    let n = view.size() as i32;
    let inv = source_to_view
        .inverse()
        .map_err(|e| opencv::Error::new(opencv::core::StsBadArg, e.to_string()))?;
    let mut map_x = Mat::new_rows_cols_with_default(n, n, opencv::core::CV_32FC1, Scalar::all(-1.0))?;
    let mut map_y = Mat::new_rows_cols_with_default(n, n, opencv::core::CV_32FC1, Scalar::all(-1.0))?;
    for r in 0..n {
        for c in 0..n {
            if let Some(p) = inv.apply((c as f64, r as f64)) {
                let (x, y) = distort(lens, p);
                *map_x.at_2d_mut::<f32>(r, c)? = x as f32;
                *map_y.at_2d_mut::<f32>(r, c)? = y as f32;
            }
        }
    }
    Ok((map_x, map_y))
}

/// A source pixel to where a pinhole camera with the same camera matrix would have
/// seen it: the inverse of [`distort`], by fixed-point iteration (converges for the
/// moderate distortion of real lenses within the picture).
pub fn undistort_point(lens: &Lens, (u, v): (f64, f64)) -> (f64, f64) {
    let (mut x, mut y) = (u, v);
    for _ in 0..20 {
        let (du, dv) = distort(lens, (x, y));
        x += u - du;
        y += v - dv;
    }
    (x, y)
}

/// An undistorted pixel to where the lens puts it in the source picture (OpenCV's
/// radial-tangential model: k1, k2, p1, p2, k3).
pub fn distort(lens: &Lens, (u, v): (f64, f64)) -> (f64, f64) {
    let m = &lens.camera_matrix;
    let (fx, cx, fy, cy) = (m[0], m[2], m[4], m[5]);
    let k = |i: usize| lens.distortion.get(i).copied().unwrap_or(0.0);
    let (k1, k2, p1, p2, k3) = (k(0), k(1), k(2), k(3), k(4));
    let (x, y) = ((u - cx) / fx, (v - cy) / fy);
    let r2 = x * x + y * y;
    let radial = 1.0 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2;
    let xd = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x);
    let yd = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y;
    (fx * xd + cx, fy * yd + cy)
}

impl Rectifier {
    pub fn new(cal: &Calibration, view: RectifiedView) -> opencv::Result<Rectifier> {
        let h: Homography = view.from_source(&cal.image_to_board());
        let size = Size::new(view.size() as i32, view.size() as i32);
        let ones = Mat::new_rows_cols_with_default(cal.height as i32, cal.width as i32, CV_8UC1, Scalar::all(255.0))?;
        let mut known = Mat::default();
        let warp = match &cal.lens {
            None => Warp::Perspective(Mat::from_slice_2d(&h.0)?),
            Some(lens) => {
                let (map_x, map_y) = lens_maps(&h, lens, view)?;
                Warp::Remap(map_x, map_y)
            }
        };
        warp.apply(&ones, &mut known, size, imgproc::INTER_NEAREST)?;
        Ok(Rectifier { view, warp, known })
    }

    pub fn view(&self) -> RectifiedView {
        self.view
    }

    /// Warps one source frame (BGR) into the rectified view.
    pub fn rectify(&self, frame: &Mat) -> opencv::Result<Rectified> {
        let size = Size::new(self.view.size() as i32, self.view.size() as i32);
        let mut image = Mat::default();
        self.warp.apply(frame, &mut image, size, imgproc::INTER_LINEAR)?;
        Ok(Rectified {
            image,
            known: self.known.clone(),
            view: self.view,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undistort_inverts_distort_for_a_wide_angle_lens() {
        let lens = Lens {
            camera_matrix: [600.0, 0.0, 320.0, 0.0, 600.0, 240.0, 0.0, 0.0, 1.0],
            distortion: vec![-0.3, 0.1, 0.001, -0.001, 0.0],
        };
        for p in [(0.0, 0.0), (320.0, 240.0), (600.0, 50.0), (100.0, 450.0)] {
            let d = distort(&lens, p);
            let back = undistort_point(&lens, d);
            assert!(
                (back.0 - p.0).abs() < 0.01 && (back.1 - p.1).abs() < 0.01,
                "{p:?} -> {d:?} -> {back:?}"
            );
        }
    }
}
