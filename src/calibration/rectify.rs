//! The rectified view of a frame: the board seen from straight above, a1 at the
//! bottom left, with a margin (see [`crate::geometry::RectifiedView`]). Pixels that
//! fall outside the source picture are marked unknown in `known`, not painted black.

use opencv::core::{Mat, Scalar, Size, BORDER_CONSTANT, CV_8UC1};
use opencv::imgproc;

use crate::calibration::Calibration;
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
    matrix: Mat,
    known: Mat,
}

impl Rectifier {
    pub fn new(cal: &Calibration, view: RectifiedView) -> opencv::Result<Rectifier> {
        let h: Homography = view.from_source(&cal.image_to_board());
        let matrix = Mat::from_slice_2d(&h.0)?;
        let size = Size::new(view.size() as i32, view.size() as i32);
        let ones = Mat::new_rows_cols_with_default(cal.height as i32, cal.width as i32, CV_8UC1, Scalar::all(255.0))?;
        let mut known = Mat::default();
        imgproc::warp_perspective(&ones, &mut known, &matrix, size, imgproc::INTER_NEAREST, BORDER_CONSTANT, Scalar::all(0.0))?;
        Ok(Rectifier { view, matrix, known })
    }

    pub fn view(&self) -> RectifiedView {
        self.view
    }

    /// Warps one source frame (BGR) into the rectified view.
    pub fn rectify(&self, frame: &Mat) -> opencv::Result<Rectified> {
        let size = Size::new(self.view.size() as i32, self.view.size() as i32);
        let mut image = Mat::default();
        imgproc::warp_perspective(frame, &mut image, &self.matrix, size, imgproc::INTER_LINEAR, BORDER_CONSTANT, Scalar::all(0.0))?;
        Ok(Rectified { image, known: self.known.clone(), view: self.view })
    }
}
