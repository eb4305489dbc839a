//! The optional lens model: a real empty-board clip bent by a known wide-angle lens is
//! calibrated through that lens to the corners of the unbent clip, and rectified to
//! the same top-down picture.
#![cfg(feature = "vision")]

mod footage_support;
use footage_support::footage;

use arbiter::calibration::detect::{self, DetectOptions, image_order};
use arbiter::calibration::file::Lens;
use arbiter::calibration::rectify::{Rectifier, undistort_point};
use arbiter::capture::{self, Source};
use arbiter::geometry::RectifiedView;
use opencv::core::{self, Mat, Scalar};
use opencv::imgproc;
use opencv::prelude::*;

/// Barrel distortion of a cheap wide-angle lens (straight lines bow by several pixels
/// at the picture's edges).
fn lens() -> Lens {
    Lens {
        camera_matrix: [500.0, 0.0, 320.0, 0.0, 500.0, 240.0, 0.0, 0.0, 1.0],
        distortion: vec![-0.25, 0.06, 0.0, 0.0],
    }
}

/// What the lens makes of a pinhole picture: each distorted pixel takes the colour of
/// the undistorted point it comes from.
fn bend(frame: &Mat, lens: &Lens) -> Mat {
    let (w, h) = (frame.cols(), frame.rows());
    let mut mx = Mat::new_rows_cols_with_default(h, w, core::CV_32FC1, Scalar::all(0.0)).unwrap();
    let mut my = Mat::new_rows_cols_with_default(h, w, core::CV_32FC1, Scalar::all(0.0)).unwrap();
    for y in 0..h {
        for x in 0..w {
            let (u, v) = undistort_point(lens, (x as f64, y as f64));
            *mx.at_2d_mut::<f32>(y, x).unwrap() = u as f32;
            *my.at_2d_mut::<f32>(y, x).unwrap() = v as f32;
        }
    }
    let mut out = Mat::default();
    imgproc::remap(
        frame,
        &mut out,
        &mx,
        &my,
        imgproc::INTER_LINEAR,
        core::BORDER_CONSTANT,
        Scalar::all(0.0),
    )
    .unwrap();
    out
}

#[test]
fn a_bent_picture_calibrated_through_its_lens_matches_the_straight_one() {
    let (frames, _) = capture::read_all(Source::File(footage("emptyBoard001.avi")), Some(21)).unwrap();
    let straight: Vec<Mat> = frames.iter().step_by(10).map(|f| f.image.clone()).collect();
    let lens = lens();
    let bent: Vec<Mat> = straight.iter().map(|f| bend(f, &lens)).collect();

    let plain = detect::calibrate_frames(&straight, &DetectOptions::default()).unwrap();
    let opts = DetectOptions {
        lens: Some(lens.clone()),
        ..DetectOptions::default()
    };
    let through = detect::calibrate_frames(&bent, &opts).unwrap();
    assert_eq!(through.lens.as_ref(), Some(&lens));
    let square =
        (plain.corners_px[1][0] - plain.corners_px[0][0]).hypot(plain.corners_px[1][1] - plain.corners_px[0][1]) / 8.0;
    for (a, b) in image_order(plain.corners_px)
        .iter()
        .zip(image_order(through.corners_px))
    {
        let d = (a[0] - b[0]).hypot(a[1] - b[1]);
        assert!(d < 0.1 * square, "corner {a:?} vs {b:?}: {d:.2} px");
    }

    // Without the lens the bent board's corners are far off: the test can tell.
    let ignored = detect::calibrate_frames(&bent, &DetectOptions::default()).unwrap();
    let worst = image_order(plain.corners_px)
        .iter()
        .zip(image_order(ignored.corners_px))
        .map(|(a, b)| (a[0] - b[0]).hypot(a[1] - b[1]))
        .fold(0.0, f64::max);
    assert!(
        worst > 0.2 * square,
        "without the lens the corners move by only {worst:.1} px"
    );

    // Rectifying the bent frame through the lens gives the straight frame's view.
    let r_straight = Rectifier::new(&plain, RectifiedView::STANDARD)
        .unwrap()
        .rectify(&straight[0])
        .unwrap();
    let r_bent = Rectifier::new(&through, RectifiedView::STANDARD)
        .unwrap()
        .rectify(&bent[0])
        .unwrap();
    let mut diff = Mat::default();
    core::absdiff(&r_straight.image, &r_bent.image, &mut diff).unwrap();
    let mean = core::mean(&diff, &r_bent.known).unwrap();
    let grey_diff = (mean[0] + mean[1] + mean[2]) / 3.0;
    assert!(
        grey_diff < 12.0,
        "mean difference of the two rectified views: {grey_diff:.1} grey levels"
    );
}
