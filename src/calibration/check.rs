//! The check picture: the calibration's grid and square names drawn over a frame, so
//! that a person sees at a glance whether it sits on the board.

use opencv::core::{Mat, Point, Scalar};
use opencv::imgproc;
use opencv::prelude::*;

use crate::calibration::{Calibration, WhiteSide};
use crate::geometry::{BoardPoint, CORNER_ORDER};

/// Board coordinates to source pixels (through the lens model when there is one).
fn to_image(cal: &Calibration, inv: &crate::geometry::Homography, x: f64, y: f64) -> Option<Point> {
    let (px, py) = inv.apply((x, y))?;
    let (px, py) = match &cal.lens {
        Some(lens) => crate::calibration::rectify::distort(lens, (px, py)),
        None => (px, py),
    };
    (px.is_finite() && py.is_finite() && px.abs() < 1e6 && py.abs() < 1e6)
        .then(|| Point::new(px.round() as i32, py.round() as i32))
}

/// A copy of `frame` (BGR) with the 9 + 9 grid lines, every square's name, the four
/// outer corners labelled, White's edge marked and any regions outlined.
pub fn draw_check(frame: &Mat, cal: &Calibration) -> opencv::Result<Mat> {
    let mut out = frame.clone();
    let inv = cal
        .image_to_board()
        .inverse()
        .map_err(|e| opencv::Error::new(opencv::core::StsBadArg, e.to_string()))?;
    let green = Scalar::new(0.0, 255.0, 0.0, 0.0);
    let yellow = Scalar::new(0.0, 255.0, 255.0, 0.0);
    let red = Scalar::new(0.0, 0.0, 255.0, 0.0);
    let magenta = Scalar::new(255.0, 0.0, 255.0, 0.0);
    // Lines are drawn as polylines through 16 steps so that a lens model bends them.
    for k in 0..=8 {
        let k = k as f64;
        for horizontal in [false, true] {
            let pts: Vec<Point> = (0..=16)
                .filter_map(|s| {
                    let t = s as f64 / 2.0;
                    if horizontal {
                        to_image(cal, &inv, t, k)
                    } else {
                        to_image(cal, &inv, k, t)
                    }
                })
                .collect();
            let edge = k == 0.0 || k == 8.0;
            for w in pts.windows(2) {
                imgproc::line(
                    &mut out,
                    w[0],
                    w[1],
                    if edge { red } else { green },
                    if edge { 2 } else { 1 },
                    imgproc::LINE_AA,
                    0,
                )?;
            }
        }
    }
    let square = {
        let a = to_image(cal, &inv, 3.5, 3.5);
        let b = to_image(cal, &inv, 4.5, 4.5);
        match (a, b) {
            (Some(a), Some(b)) => (((b.x - a.x) as f64).hypot((b.y - a.y) as f64) / std::f64::consts::SQRT_2).max(8.0),
            _ => 32.0,
        }
    };
    let font_scale = (square / 90.0).clamp(0.25, 1.5);
    let known = cal.white_side != WhiteSide::Unknown;
    for sq in shakmaty::Square::ALL {
        let c = BoardPoint::centre_of(sq);
        let Some(p) = to_image(cal, &inv, c.x, c.y) else {
            continue;
        };
        let name = if known { sq.to_string() } else { format!("{}?", sq) };
        put_centred(&mut out, &name, p, font_scale, yellow)?;
    }
    for (name, (x, y)) in CORNER_ORDER.iter().zip(crate::geometry::CORNERS_BOARD) {
        if let Some(p) = to_image(cal, &inv, x, y) {
            imgproc::circle(&mut out, p, (square / 8.0).max(3.0) as i32, red, 2, imgproc::LINE_AA, 0)?;
            let label = if known {
                (*name).to_string()
            } else {
                format!("corner {}", name)
            };
            put_centred(
                &mut out,
                &label,
                Point::new(p.x, p.y - (square / 5.0) as i32),
                font_scale,
                red,
            )?;
        }
    }
    if known {
        // A thick bar along White's edge, a little outside the board.
        let pts: Vec<Point> = (0..=16)
            .filter_map(|s| to_image(cal, &inv, s as f64 / 2.0, -0.15))
            .collect();
        for w in pts.windows(2) {
            imgproc::line(
                &mut out,
                w[0],
                w[1],
                Scalar::new(255.0, 255.0, 255.0, 0.0),
                4,
                imgproc::LINE_AA,
                0,
            )?;
        }
        if let Some(p) = to_image(cal, &inv, 4.0, -0.45) {
            put_centred(&mut out, "White", p, font_scale, Scalar::new(255.0, 255.0, 255.0, 0.0))?;
        }
    } else {
        let top_centre = Point::new(out.cols() / 2, 20);
        put_centred(
            &mut out,
            "orientation unknown: names are provisional (give --white-side)",
            top_centre,
            0.5,
            red,
        )?;
    }
    for region in &cal.regions {
        let pts: Vec<Point> = region
            .polygon_px
            .iter()
            .map(|&[x, y]| Point::new(x.round() as i32, y.round() as i32))
            .collect();
        for k in 0..pts.len() {
            imgproc::line(
                &mut out,
                pts[k],
                pts[(k + 1) % pts.len()],
                magenta,
                2,
                imgproc::LINE_AA,
                0,
            )?;
        }
        if let Some(p) = pts.first() {
            put_centred(&mut out, &region.name, *p, font_scale, magenta)?;
        }
    }
    Ok(out)
}

/// Writes `text` centred on `at`, moved inside the picture when `at` is near or past
/// its edge (outer corners may lie outside a tightly framed picture).
fn put_centred(img: &mut Mat, text: &str, at: Point, scale: f64, colour: Scalar) -> opencv::Result<()> {
    let mut base = 0;
    let size = imgproc::get_text_size(text, imgproc::FONT_HERSHEY_SIMPLEX, scale, 1, &mut base)?;
    let x = (at.x - size.width / 2).clamp(2, (img.cols() - size.width - 2).max(2));
    let y = (at.y + size.height / 2).clamp(size.height + 2, (img.rows() - base - 2).max(size.height + 2));
    let org = Point::new(x, y);
    // A dark outline keeps the text readable on light and dark squares alike.
    for (ink, thickness) in [(Scalar::all(0.0), 3), (colour, 1)] {
        imgproc::put_text(
            img,
            text,
            org,
            imgproc::FONT_HERSHEY_SIMPLEX,
            scale,
            ink,
            thickness,
            imgproc::LINE_AA,
            false,
        )?;
    }
    Ok(())
}
