//! Finding the board automatically: the grid of inner corners, the outer corners
//! extrapolated from it, and which side White sits on.
//!
//! # How
//! 1. **Grid.** OpenCV's chessboard finders look for the 7x7 inner corners of an empty
//!    board (the sector-based `findChessboardCornersSB` first, then the classic
//!    quad-based finder). With pieces in the initial position only the four middle
//!    ranks are empty: their inner corners form a 7x3 grid (a 7x5 one when the
//!    corners next to the pawns are clear), which is looked for next. Large pictures
//!    are searched at a reduced size (the board is found first, wherever it lies in a
//!    wide view) and the corners are then refined to sub-pixel on the full picture.
//! 2. **Fit.** A least-squares homography from grid coordinates (square units) to the
//!    found corners; the outer corners are that homography at (0,0), (8,0), (8,8),
//!    (0,8), so they may fall outside the picture when the board fills it. The
//!    quality figure is the mean distance between the found corners and the fitted
//!    grid (reprojection error).
//! 3. **Which rows.** A 7x3 grid spans the board's width but not its length: the board
//!    is the 8-row window that is most like a chessboard (the squares' colours
//!    alternate along each row), sampled near the squares' corners where pieces,
//!    which stand at the centres, do not reach.
//! 4. **Orientation.** In the initial position the two edges that carry pieces are
//!    those whose rows no longer alternate at the square centres (a piece hides the
//!    centre of its square); White's edge is the one where the centres are lighter
//!    than the squares' own corners. An empty board has no such edges: orientation is
//!    then unknown, and said so.
//!
//! Several frames are tried (hands come and go); the fit with the most corners and
//! then the lowest reprojection error wins, and the orientation is voted over frames.

use std::time::Instant;

use opencv::calib3d;
use opencv::core::{Mat, Point2f, Size, TermCriteria, TermCriteria_COUNT, TermCriteria_EPS, Vector};
use opencv::imgproc;
use opencv::prelude::*;

use crate::calibration::file::Lens;
use crate::calibration::{Calibration, WhiteSide};
use crate::capture::{self, CaptureError, CaptureMsg, Source};
use crate::geometry::Homography;

/// Why no calibration could be made.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    #[error(
        "the board was not found in any of the {frames} frame(s) tried ({detail}). Give its four outer corners by hand: \
         `arbiter calibrate SOURCE --corners x1,y1,x2,y2,x3,y3,x4,y4` (a1, h1, h8, a8 in source pixels; \
         `arbiter calibrate --check` shows the result)"
    )]
    NotFound { frames: usize, detail: String },
    #[error("no frames to calibrate from")]
    NoFrames,
    #[error("cannot read the source: {0}")]
    Capture(#[from] CaptureError),
    #[error("the corners do not make a board: {0}")]
    Geometry(#[from] crate::geometry::GeometryError),
    #[error("OpenCV: {0}")]
    OpenCv(#[from] opencv::Error),
}

/// How to look for the board.
#[derive(Debug, Clone)]
pub struct DetectOptions {
    /// How many frames of a clip to try.
    pub frames: usize,
    /// Spread those frames over the first this many seconds (hands come and go).
    pub span_s: f64,
    /// White's side when the caller knows it; otherwise it is read from the pieces.
    pub white_side: Option<WhiteSide>,
    /// Pictures whose longer side exceeds this are searched at this size first.
    pub max_search_px: u32,
    /// A lens model: frames are undistorted before the search, so the corners and the
    /// homography are in undistorted pixels (see [`crate::calibration::file::Lens`]).
    pub lens: Option<Lens>,
}

impl Default for DetectOptions {
    fn default() -> Self {
        DetectOptions {
            frames: 12,
            span_s: 4.0,
            white_side: None,
            max_search_px: 960,
            lens: None,
        }
    }
}

/// The board grid found in one frame.
#[derive(Debug, Clone)]
pub struct GridFit {
    /// Grid coordinates (square units, 0..8 along both axes of the found pattern) to
    /// source pixels. The grid's axes are the pattern's, not yet White's.
    pub grid_to_image: Homography,
    /// How many corners the final fit used.
    pub points: usize,
    /// Whether those corners spread over the whole board along both axes.
    pub spans_board: bool,
    pub reprojection_error_px: f64,
    /// `grid` when all 49 inner corners were found, `partial-grid` when fewer were
    /// (the middle ranks of the initial position, or a board partly out of view).
    pub method: &'static str,
    /// Which frame (index into the frames given).
    pub frame: usize,
}

impl GridFit {
    /// Outer corners in grid order: (0,0), (8,0), (8,8), (0,8).
    pub fn outer_corners(&self) -> [[f64; 2]; 4] {
        [(0.0, 0.0), (8.0, 0.0), (8.0, 8.0), (0.0, 8.0)].map(|p| {
            let (x, y) = self.grid_to_image.apply(p).unwrap_or((f64::NAN, f64::NAN));
            [x, y]
        })
    }

    /// Side of a square in pixels near the board centre.
    pub fn square_px(&self) -> f64 {
        let a = self.grid_to_image.apply((4.0, 4.0)).unwrap_or((0.0, 0.0));
        let b = self.grid_to_image.apply((5.0, 5.0)).unwrap_or((0.0, 0.0));
        ((b.0 - a.0).hypot(b.1 - a.1)) / std::f64::consts::SQRT_2
    }
}

/// An edge of the found grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridEdge {
    ULow,
    UHigh,
    VLow,
    VHigh,
}

/// Calibrates from several frames of one camera: the best grid, the orientation voted
/// over the frames.
pub fn calibrate_frames(frames: &[Mat], opts: &DetectOptions) -> Result<Calibration, CalibrationError> {
    let first = frames.first().ok_or(CalibrationError::NoFrames)?;
    let (width, height) = (first.cols() as u32, first.rows() as u32);
    let mut best: Option<GridFit> = None;
    let mut grays = Vec::with_capacity(frames.len());
    let mut full_fits = 0;
    for (i, f) in frames.iter().enumerate() {
        let gray = match &opts.lens {
            Some(lens) => to_gray(&undistort(f, lens)?)?,
            None => to_gray(f)?,
        };
        // Three frames with corners over the whole board are plenty; the rest only vote
        // on the orientation (that is cheap).
        if full_fits < ENOUGH_FULL_FITS
            && let Some(fit) = find_grid(&gray, i, opts)?
        {
            full_fits += usize::from(fit.spans_board);
            if best.as_ref().is_none_or(|b| better(&fit, b)) {
                best = Some(fit);
            }
        }
        grays.push(gray);
    }
    let Some(fit) = best else {
        return Err(CalibrationError::NotFound {
            frames: frames.len(),
            detail: "no 7x7, 7x5 or 7x3 grid of square corners was seen; is the whole board in view and not covered?"
                .into(),
        });
    };
    let read = vote_orientation(&grays, &fit);
    let method = if matches!(read, Decided::Edge(_)) {
        "auto-pieces"
    } else {
        "auto-empty"
    };
    let white = match opts.white_side {
        Some(side) => Decided::Side(side),
        None => read,
    };
    let grid_corners = fit.outer_corners();
    let (corners_px, white_side) = match white {
        Decided::Side(side) => (order_for_side(image_order(grid_corners), side), side),
        Decided::Edge(edge) => {
            let c = order_from_edge(grid_corners, edge);
            (c, side_of(c))
        }
    };
    let mut cal = Calibration::from_corners(width, height, corners_px, white_side)?;
    cal.reprojection_error_px = Some((fit.reprojection_error_px * 1000.0).round() / 1000.0);
    cal.method = Some(method.into());
    cal.lens = opts.lens.clone();
    Ok(cal)
}

const ENOUGH_FULL_FITS: usize = 3;

/// Calibrates from the first seconds of a source: `opts.frames` frames spread over
/// `opts.span_s` seconds (every frame of a shorter clip or folder is a candidate).
pub fn calibrate_source(source: &Source, opts: &DetectOptions) -> Result<Calibration, CalibrationError> {
    let frames = sample_frames(source, opts)?;
    let mut cal = calibrate_frames(&frames, opts)?;
    cal.source = Some(source.name());
    Ok(cal)
}

/// `opts.frames` frames from the first `opts.span_s` seconds of the source.
pub fn sample_frames(source: &Source, opts: &DetectOptions) -> Result<Vec<Mat>, CalibrationError> {
    let handle = capture::spawn(source.clone(), capture::CaptureOptions::default())?;
    let fps = handle.info().fps.unwrap_or(25.0);
    let span_frames = ((opts.span_s * fps).round() as u64).max(1);
    let step = (span_frames / opts.frames.max(1) as u64).max(1);
    let mut frames = Vec::new();
    for msg in handle.rx.iter() {
        match msg {
            CaptureMsg::Frame(f) => {
                if f.index % step == 0 {
                    frames.push(f.image);
                }
                if frames.len() >= opts.frames || f.index + 1 >= span_frames.max(opts.frames as u64) {
                    break;
                }
            }
            CaptureMsg::End { .. } => break,
            _ => {}
        }
    }
    handle.stop();
    if frames.is_empty() {
        return Err(CalibrationError::NoFrames);
    }
    Ok(frames)
}

/// Corners spread over the whole board (6 or more squares apart along both axes) pin
/// the outer corners down better than a band of the board does; among equals the lower
/// reprojection error wins.
fn better(a: &GridFit, b: &GridFit) -> bool {
    (a.spans_board, -a.reprojection_error_px) > (b.spans_board, -b.reprojection_error_px)
}

/// The frame as a pinhole camera with the same camera matrix would have seen it.
pub fn undistort(frame: &Mat, lens: &Lens) -> opencv::Result<Mat> {
    let k = Mat::from_slice_2d(&[
        &lens.camera_matrix[0..3],
        &lens.camera_matrix[3..6],
        &lens.camera_matrix[6..9],
    ])?;
    let d = Mat::from_slice(&lens.distortion)?;
    let mut out = Mat::default();
    calib3d::undistort(frame, &mut out, &k, &d, &k)?;
    Ok(out)
}

fn to_gray(frame: &Mat) -> opencv::Result<Mat> {
    if frame.channels() == 1 {
        return Ok(frame.clone());
    }
    let mut gray = Mat::default();
    imgproc::cvt_color(frame, &mut gray, imgproc::COLOR_BGR2GRAY, 0)?;
    Ok(gray)
}

/// The classic finder's patterns, largest first: the inner corners of an empty board,
/// then the empty middle of the initial position (4 empty ranks: 3 rows of corners
/// clear of pieces, 5 when the corners beside the pawns are visible too).
const CLASSIC_PATTERNS: [(i32, i32); 3] = [(7, 7), (7, 5), (7, 3)];

/// A found grid of corners whose first corner is at board line `(ox, oy)`.
struct Corners {
    pts: Vec<Point2f>,
    cols: usize,
    rows: usize,
}

/// Finds the grid in one grey frame.
pub fn find_grid(gray: &Mat, frame: usize, opts: &DetectOptions) -> Result<Option<GridFit>, CalibrationError> {
    let longer = gray.cols().max(gray.rows()) as f64;
    let mut best: Option<GridFit> = None;
    // The search size, then half of it: the finders work best when a square is some
    // 20 to 60 pixels, and a board that fills a large picture has larger squares.
    for search_px in [opts.max_search_px as f64, opts.max_search_px as f64 / 2.0] {
        let scale = (search_px / longer).min(1.0);
        let small = if scale < 1.0 {
            let mut s = Mat::default();
            imgproc::resize(gray, &mut s, Size::new(0, 0), scale, scale, imgproc::INTER_AREA)?;
            s
        } else {
            gray.clone()
        };
        if let Some(mut found) = find_corners(&small)? {
            for p in found.pts.iter_mut() {
                *p = Point2f::new(p.x / scale as f32, p.y / scale as f32);
            }
            refine(gray, &mut found.pts, found.cols)?;
            if let Some((h, err, points, spans_board)) = place(gray, &found)? {
                let fit = GridFit {
                    grid_to_image: h,
                    points,
                    spans_board,
                    reprojection_error_px: err,
                    method: if found.cols.min(found.rows) >= 7 {
                        "grid"
                    } else {
                        "partial-grid"
                    },
                    frame,
                };
                if best.as_ref().is_none_or(|b| better(&fit, b)) {
                    best = Some(fit);
                }
            }
        }
        if best.as_ref().is_some_and(|b| b.spans_board) || longer <= search_px / 2.0 {
            break;
        }
    }
    Ok(best)
}

/// The largest grid of square corners in view. The sector-based finder is asked for
/// any grid of at least 3x3 corners and allowed to return a larger one (up to the
/// board's 9x9 lines when its edge corners are clear); the classic finder is the
/// fallback, for the fixed patterns an empty board or the initial position show.
fn find_corners(gray: &Mat) -> opencv::Result<Option<Corners>> {
    let base = calib3d::CALIB_CB_LARGER | calib3d::CALIB_CB_EXHAUSTIVE | calib3d::CALIB_CB_ACCURACY;
    let mut best: Option<Corners> = None;
    // With and without contrast normalisation: each finds grids the other misses.
    for flags in [base, base | calib3d::CALIB_CB_NORMALIZE_IMAGE] {
        let mut corners: Vector<Point2f> = Vector::new();
        let mut meta = Mat::default();
        if calib3d::find_chessboard_corners_sb_with_meta(gray, Size::new(3, 3), &mut corners, flags, &mut meta)? {
            let (cols, rows) = (meta.cols() as usize, meta.rows() as usize);
            if cols * rows == corners.len()
                && cols <= 9
                && rows <= 9
                && best.as_ref().is_none_or(|b| b.pts.len() < corners.len())
            {
                best = Some(Corners {
                    pts: corners.to_vec(),
                    cols,
                    rows,
                });
            }
        }
        if best.as_ref().is_some_and(|b| b.cols.min(b.rows) >= 7) {
            break;
        }
    }
    if best.is_some() {
        return Ok(best);
    }
    let flags = calib3d::CALIB_CB_ADAPTIVE_THRESH | calib3d::CALIB_CB_NORMALIZE_IMAGE;
    for (cols, rows) in CLASSIC_PATTERNS {
        let mut corners: Vector<Point2f> = Vector::new();
        if calib3d::find_chessboard_corners(gray, Size::new(cols, rows), &mut corners, flags)?
            && corners.len() == (cols * rows) as usize
        {
            return Ok(Some(Corners {
                pts: corners.to_vec(),
                cols: cols as usize,
                rows: rows as usize,
            }));
        }
    }
    Ok(None)
}

/// Sub-pixel refinement on the full-size picture, with a window of a quarter square:
/// large enough to hold the corner's edges, small enough to stay inside the four
/// squares that meet there.
fn refine(gray: &Mat, pts: &mut [Point2f], cols: usize) -> opencv::Result<()> {
    if pts.len() < 2 || cols < 2 {
        return Ok(());
    }
    let spacing = ((pts[1].x - pts[0].x).hypot(pts[1].y - pts[0].y)) as f64;
    let half = ((spacing / 4.0).round() as i32).clamp(2, 15);
    let mut v: Vector<Point2f> = Vector::from_slice(pts);
    let criteria = TermCriteria::new(TermCriteria_COUNT + TermCriteria_EPS, 40, 0.01)?;
    imgproc::corner_sub_pix(gray, &mut v, Size::new(half, half), Size::new(-1, -1), criteria)?;
    pts.copy_from_slice(&v.to_vec());
    Ok(())
}

/// Least-squares homography from grid coordinates to image points, with its mean
/// reprojection error in pixels.
fn fit_grid(grid: &[(f64, f64)], pts: &[Point2f]) -> opencv::Result<Option<(Homography, f64)>> {
    let src: Vector<Point2f> = grid.iter().map(|&(u, v)| Point2f::new(u as f32, v as f32)).collect();
    let dst: Vector<Point2f> = pts.iter().copied().collect();
    let mut mask = Mat::default();
    let m = calib3d::find_homography(&src, &dst, &mut mask, 0, 3.0)?;
    if m.empty() {
        return Ok(None);
    }
    let mut h = [[0.0; 3]; 3];
    for (r, row) in h.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = *m.at_2d::<f64>(r as i32, c as i32)?;
        }
    }
    let h = Homography(h);
    let mut sum = 0.0;
    for (&(u, v), p) in grid.iter().zip(pts) {
        let Some((x, y)) = h.apply((u, v)) else { return Ok(None) };
        sum += (x - p.x as f64).hypot(y - p.y as f64);
    }
    Ok(Some((h, sum / grid.len() as f64)))
}

/// A found grid is a board grid only if its corners lie on one projective grid to
/// within a tenth of a square: corner noise is well under that, while a corner
/// assigned to the wrong grid point is off by a whole square.
const MAX_REPROJECTION_SQUARES: f64 = 0.1;

/// Places a found grid on the board. Its corners are board lines `(ox + c, oy + r)`
/// for an unknown offset; every offset that keeps them on the board's 9x9 lines is
/// scored by how well the 8x8 squares it implies match a chessboard (colours read
/// near the squares' corners, where pieces do not reach), and the best one kept.
fn place(gray: &Mat, found: &Corners) -> opencv::Result<Option<(Homography, f64, usize, bool)>> {
    let (cols, rows) = (found.cols, found.rows);
    if cols < 2 || rows < 2 || cols > 9 || rows > 9 {
        return Ok(None);
    }
    let local: Vec<(f64, f64)> = (0..cols * rows)
        .map(|k| ((k % cols) as f64, (k / cols) as f64))
        .collect();
    let Some((h_local, err)) = fit_grid(&local, &found.pts)? else {
        return Ok(None);
    };
    let square = {
        let a = h_local.apply((0.0, 0.0)).unwrap_or((0.0, 0.0));
        let b = h_local.apply(((cols - 1) as f64, 0.0)).unwrap_or((0.0, 0.0));
        (b.0 - a.0).hypot(b.1 - a.1) / (cols - 1) as f64
    };
    if err > MAX_REPROJECTION_SQUARES * square {
        return Ok(None);
    }
    // Square colours in local cell coordinates over every cell any placement can cover.
    let (free_x, free_y) = (9 - cols as i32, 9 - rows as i32);
    let (ax0, ay0) = (-free_x, -free_y);
    let (nx, ny) = (
        (cols as i32 - 1 + 2 * free_x) as usize,
        (rows as i32 - 1 + 2 * free_y) as usize,
    );
    let mut colour = vec![None; nx * ny];
    for b in 0..ny {
        for a in 0..nx {
            colour[b * nx + a] = corner_colour(gray, &h_local, (a as i32 + ax0) as f64, (b as i32 + ay0) as f64);
        }
    }
    let mut best: Option<(f64, i32, i32)> = None;
    for ox in 0..=free_x {
        for oy in 0..=free_y {
            // Board cell (i, j) is local cell (i - ox, j - oy).
            let mut s = 0.0;
            for j in 0..8 {
                for i in 0..8 {
                    let (a, b) = (i - ox - ax0, j - oy - ay0);
                    if let Some(c) = colour[(b as usize) * nx + a as usize] {
                        s += if (i + j) % 2 == 0 { c } else { -c };
                    }
                }
            }
            let score = s.abs() / 64.0;
            if best.is_none_or(|(b, _, _)| score > b) {
                best = Some((score, ox, oy));
            }
        }
    }
    let Some((score, ox, oy)) = best else { return Ok(None) };
    // The window must look like a chessboard: its checker score against the spread of
    // the colours it holds is about 1 on a board (light and dark squares each sit half
    // the light-dark difference from the mean) and near 0 for a lattice that cuts
    // across squares; pieces that reach a square's corners lower it, but even half of
    // the squares misread would keep it above one half.
    let seen: Vec<f64> = (0..8)
        .flat_map(|j| (0..8).map(move |i| (i, j)))
        .filter_map(|(i, j)| colour[((j - oy - ay0) as usize) * nx + (i - ox - ax0) as usize])
        .collect();
    let mean = seen.iter().sum::<f64>() / seen.len().max(1) as f64;
    let spread = seen.iter().map(|c| (c - mean).abs()).sum::<f64>() / 64.0;
    if spread <= 0.0 || score < MIN_CHECKER_SCORE * spread {
        return Ok(None);
    }
    // Corners on the board's outer edge are L- and T-shaped (square against border), and
    // their sub-pixel position is less certain than the X-shaped inner corners': fit
    // the inner ones when enough of them (a 3x3 grid's worth) were found.
    let all: Vec<((f64, f64), Point2f)> = local
        .iter()
        .map(|&(u, v)| (u + ox as f64, v + oy as f64))
        .zip(found.pts.iter().copied())
        .collect();
    let inner: Vec<((f64, f64), Point2f)> = all
        .iter()
        .copied()
        .filter(|&((x, y), _)| x > 0.0 && x < 8.0 && y > 0.0 && y < 8.0)
        .collect();
    let mut used = if inner.len() >= 9 { inner } else { all };
    // A corner half hidden by a piece (or a hand) is pulled towards the piece's outline:
    // such corners stand out from the grid by several times the typical residual and
    // are left out of the final fit (at most a quarter of them).
    for _ in 0..2 {
        let (grid, pts): (Vec<(f64, f64)>, Vec<Point2f>) = used.iter().copied().unzip();
        let Some((h, _)) = fit_grid(&grid, &pts)? else {
            return Ok(None);
        };
        let res: Vec<f64> = used.iter().map(|&(g, p)| residual(&h, g, p)).collect();
        let mut sorted = res.clone();
        sorted.sort_by(f64::total_cmp);
        let limit = (OUTLIER_FACTOR * sorted[sorted.len() / 2]).max(0.5);
        let keep: Vec<_> = used
            .iter()
            .zip(&res)
            .filter(|&(_, r)| *r <= limit)
            .map(|(u, _)| *u)
            .collect();
        if keep.len() == used.len() || keep.len() * 4 < used.len() * 3 || keep.len() < 9 {
            break;
        }
        used = keep;
    }
    let span = |f: fn(&(f64, f64)) -> f64| {
        let v = used.iter().map(|(g, _)| f(g));
        v.clone().fold(f64::MIN, f64::max) - v.fold(f64::MAX, f64::min)
    };
    let spans_board = span(|g| g.0) >= 6.0 && span(|g| g.1) >= 6.0;
    let (grid, pts): (Vec<(f64, f64)>, Vec<Point2f>) = used.into_iter().unzip();
    Ok(fit_grid(&grid, &pts)?.map(|(h, err)| (h, err, pts.len(), spans_board)))
}

/// A corner this many times the median residual off the fitted grid is an outlier.
const OUTLIER_FACTOR: f64 = 3.0;

fn residual(h: &Homography, (u, v): (f64, f64), p: Point2f) -> f64 {
    h.apply((u, v))
        .map_or(f64::INFINITY, |(x, y)| (x - p.x as f64).hypot(y - p.y as f64))
}

/// See [`place`]: the least checker score a board window must reach, as a share of the
/// spread of its colours.
const MIN_CHECKER_SCORE: f64 = 0.5;

/// Mean grey level of a small patch (half-width `half` squares) around grid point
/// `(u, v)`, from the points that fall inside the picture (`None` when fewer than half do).
fn sample(gray: &Mat, h: &Homography, u: f64, v: f64, half: f64) -> Option<f64> {
    const N: i32 = 4;
    let (mut sum, mut n) = (0.0, 0);
    for a in -N..=N {
        for b in -N..=N {
            let (x, y) = h.apply((u + half * a as f64 / N as f64, v + half * b as f64 / N as f64))?;
            let (x, y) = (x.round() as i32, y.round() as i32);
            if x >= 0 && y >= 0 && x < gray.cols() && y < gray.rows() {
                sum += *gray.at_2d::<u8>(y, x).ok()? as f64;
                n += 1;
            }
        }
    }
    (n * 2 > (2 * N + 1) * (2 * N + 1)).then(|| sum / n as f64)
}

/// The colour of square `(i, j)` (its lower-left corner at grid point `(i, j)`),
/// read near its four corners, 0.2 square in: pieces stand at the centre and their
/// bases cover at most about 0.6 of a square, so at least some of these patches
/// show the square itself. The median of the patches that are in view.
fn corner_colour(gray: &Mat, h: &Homography, i: f64, j: f64) -> Option<f64> {
    let mut v: Vec<f64> = [(0.2, 0.2), (0.8, 0.2), (0.2, 0.8), (0.8, 0.8)]
        .iter()
        .filter_map(|&(a, b)| sample(gray, h, i + a, j + b, 0.08))
        .collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some((v[(v.len() - 1) / 2] + v[v.len() / 2]) / 2.0)
}

/// How strongly a row of 8 squares alternates light/dark: |mean of (-1)^k c_k|,
/// counting only the squares in view (0 when fewer than half are).
fn row_alternation(cells: &[Option<f64>]) -> f64 {
    let seen: Vec<(usize, f64)> = cells
        .iter()
        .enumerate()
        .filter_map(|(k, c)| c.map(|c| (k, c)))
        .collect();
    if seen.len() * 2 < cells.len() {
        return 0.0;
    }
    let s: f64 = seen.iter().map(|&(k, c)| if k % 2 == 0 { c } else { -c }).sum();
    (s / seen.len() as f64).abs() * (seen.len() as f64 / cells.len() as f64)
}

/// The result of reading the orientation.
enum Decided {
    Side(WhiteSide),
    Edge(GridEdge),
}

/// Reads White's edge in each frame with the best grid; the majority of the frames
/// that could tell wins; unknown when none could (an empty board).
fn vote_orientation(grays: &[Mat], fit: &GridFit) -> Decided {
    let mut votes: Vec<(GridEdge, usize)> = Vec::new();
    for g in grays {
        if let Some(edge) = white_edge(g, &fit.grid_to_image) {
            match votes.iter_mut().find(|(e, _)| *e == edge) {
                Some((_, n)) => *n += 1,
                None => votes.push((edge, 1)),
            }
        }
    }
    votes.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    match votes.first() {
        Some(&(edge, n)) if votes.get(1).is_none_or(|&(_, m)| m < n) => Decided::Edge(edge),
        _ => Decided::Side(WhiteSide::Unknown),
    }
}

/// White's edge in one frame, if the initial position shows it.
pub fn white_edge(gray: &Mat, h: &Homography) -> Option<GridEdge> {
    // For each square: its own colour (near its corners) and the centre (where a piece stands).
    let mut own = [[None; 8]; 8];
    let mut centre = [[None; 8]; 8];
    for i in 0..8 {
        for j in 0..8 {
            own[i][j] = corner_colour(gray, h, i as f64, j as f64);
            centre[i][j] = sample(gray, h, i as f64 + 0.5, j as f64 + 0.5, 0.12);
        }
    }
    let strip = |edge: GridEdge| -> Vec<(usize, usize)> {
        let lines: [usize; 2] = match edge {
            GridEdge::ULow | GridEdge::VLow => [0, 1],
            GridEdge::UHigh | GridEdge::VHigh => [6, 7],
        };
        let along_u = matches!(edge, GridEdge::ULow | GridEdge::UHigh);
        lines
            .iter()
            .flat_map(|&l| (0..8).map(move |k| if along_u { (l, k) } else { (k, l) }))
            .collect()
    };
    // Alternation of the centres along the lines of a strip.
    let centre_alt = |edge: GridEdge| -> f64 {
        let cells = strip(edge);
        cells
            .chunks(8)
            .map(|line| row_alternation(&line.iter().map(|&(i, j)| centre[i][j]).collect::<Vec<_>>()))
            .sum::<f64>()
            / 2.0
    };
    // The board's own contrast: the alternation of the square colours over all rows.
    let contrast: f64 = (0..8)
        .map(|j| row_alternation(&(0..8).map(|i| own[i][j]).collect::<Vec<_>>()))
        .sum::<f64>()
        / 8.0;
    if contrast < 4.0 {
        return None; // too dark or flat to tell (grey levels 0-255)
    }
    let u_pair = centre_alt(GridEdge::ULow) + centre_alt(GridEdge::UHigh);
    let v_pair = centre_alt(GridEdge::VLow) + centre_alt(GridEdge::VHigh);
    // Pieces hide the centres: the edges that carry pieces alternate at their centres at
    // most half as strongly as the board itself does (a row of pieces of one colour
    // flattens the alternation; an empty row keeps all of it).
    let (pair, lo, hi) = if u_pair < v_pair {
        (u_pair, GridEdge::ULow, GridEdge::UHigh)
    } else {
        (v_pair, GridEdge::VLow, GridEdge::VHigh)
    };
    let other = u_pair.max(v_pair);
    if pair > 0.5 * other || pair / 2.0 > 0.5 * contrast {
        return None;
    }
    // Piece lightness: centre minus the square's own colour, so lighting gradients cancel.
    let lightness = |edge: GridEdge| -> f64 {
        let d: Vec<f64> = strip(edge)
            .iter()
            .filter_map(|&(i, j)| Some(centre[i][j]? - own[i][j]?))
            .collect();
        if d.is_empty() {
            0.0
        } else {
            d.iter().sum::<f64>() / d.len() as f64
        }
    };
    let (a, b) = (lightness(lo), lightness(hi));
    // White's and Black's pieces differ by much more than a quarter of the board's
    // light-dark contrast; a smaller difference is not a reading.
    if (a - b).abs() < 0.25 * contrast {
        return None;
    }
    Some(if a > b { lo } else { hi })
}

/// Corners in image order: top-left, top-right, bottom-right, bottom-left.
pub fn image_order(c: [[f64; 2]; 4]) -> [[f64; 2]; 4] {
    let cx = c.iter().map(|p| p[0]).sum::<f64>() / 4.0;
    let cy = c.iter().map(|p| p[1]).sum::<f64>() / 4.0;
    // Clockwise on screen (y down) is increasing atan2(y, x); start at the top-left.
    let mut v = c.to_vec();
    v.sort_by(|a, b| (a[1] - cy).atan2(a[0] - cx).total_cmp(&(b[1] - cy).atan2(b[0] - cx)));
    let start = (0..4)
        .min_by(|&i, &j| (v[i][0] + v[i][1]).total_cmp(&(v[j][0] + v[j][1])))
        .unwrap_or(0);
    [v[start], v[(start + 1) % 4], v[(start + 2) % 4], v[(start + 3) % 4]]
}

/// a1, h1, h8, a8 from image-order corners (TL, TR, BR, BL) and White's side. White
/// looks across the board from their edge, with the a-file on their left; the camera
/// looks down, so the picture is not mirrored. `Unknown` keeps image order.
pub fn order_for_side(img: [[f64; 2]; 4], side: WhiteSide) -> [[f64; 2]; 4] {
    let [tl, tr, br, bl] = img;
    match side {
        WhiteSide::Bottom => [bl, br, tr, tl],
        WhiteSide::Right => [br, tr, tl, bl],
        WhiteSide::Top => [tr, tl, bl, br],
        WhiteSide::Left => [tl, bl, br, tr],
        WhiteSide::Unknown => img,
    }
}

/// a1, h1, h8, a8 from grid-order corners ((0,0), (8,0), (8,8), (0,8)) and White's grid edge.
fn order_from_edge(c: [[f64; 2]; 4], edge: GridEdge) -> [[f64; 2]; 4] {
    // The two corners of White's edge, then the two across.
    let (p, q) = match edge {
        GridEdge::VLow => (0, 1),
        GridEdge::UHigh => (1, 2),
        GridEdge::VHigh => (2, 3),
        GridEdge::ULow => (3, 0),
    };
    let (p2, q2) = ((p + 3) % 4, (q + 1) % 4); // across from p and q
    let (a, b, across_a, across_b) = (c[p], c[q], c[p2], c[q2]);
    // Facing into the board from White's edge, "left" in image coordinates (y down)
    // is the facing direction turned by (dx, dy) -> (dy, -dx).
    let mid = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
    let far = [(across_a[0] + across_b[0]) / 2.0, (across_a[1] + across_b[1]) / 2.0];
    let d = [far[0] - mid[0], far[1] - mid[1]];
    let left = [d[1], -d[0]];
    let a_is_left = (a[0] - mid[0]) * left[0] + (a[1] - mid[1]) * left[1] > 0.0;
    if a_is_left {
        [a, b, across_b, across_a]
    } else {
        [b, a, across_a, across_b]
    }
}

/// The image edge White sits at, from a1 and h1.
pub fn side_of(c: [[f64; 2]; 4]) -> WhiteSide {
    let cx = c.iter().map(|p| p[0]).sum::<f64>() / 4.0;
    let cy = c.iter().map(|p| p[1]).sum::<f64>() / 4.0;
    let (mx, my) = ((c[0][0] + c[1][0]) / 2.0 - cx, (c[0][1] + c[1][1]) / 2.0 - cy);
    if mx.abs() > my.abs() {
        if mx > 0.0 { WhiteSide::Right } else { WhiteSide::Left }
    } else if my > 0.0 {
        WhiteSide::Bottom
    } else {
        WhiteSide::Top
    }
}

/// How long calibration took, for the measurement command.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TL: [f64; 2] = [140.0, 5.0];
    const TR: [f64; 2] = [506.0, 10.0];
    const BR: [f64; 2] = [507.0, 377.0];
    const BL: [f64; 2] = [137.0, 374.0];

    #[test]
    fn image_order_starts_top_left_and_goes_clockwise() {
        assert_eq!(image_order([BR, TL, BL, TR]), [TL, TR, BR, BL]);
    }

    #[test]
    fn white_on_the_right_puts_a1_bottom_right() {
        let c = order_for_side([TL, TR, BR, BL], WhiteSide::Right);
        assert_eq!(c, [BR, TR, TL, BL]);
        assert_eq!(side_of(c), WhiteSide::Right);
        for side in [WhiteSide::Left, WhiteSide::Top, WhiteSide::Bottom] {
            assert_eq!(side_of(order_for_side([TL, TR, BR, BL], side)), side);
        }
    }

    #[test]
    fn grid_edge_order_agrees_with_side_order() {
        // Grid (0,0) at the top-left, u to the right, v down; White on the right is UHigh.
        let grid = [TL, TR, BR, BL];
        assert_eq!(
            order_from_edge(grid, GridEdge::UHigh),
            order_for_side(grid, WhiteSide::Right)
        );
        assert_eq!(
            order_from_edge(grid, GridEdge::VHigh),
            order_for_side(grid, WhiteSide::Bottom)
        );
        assert_eq!(
            order_from_edge(grid, GridEdge::ULow),
            order_for_side(grid, WhiteSide::Left)
        );
        assert_eq!(
            order_from_edge(grid, GridEdge::VLow),
            order_for_side(grid, WhiteSide::Top)
        );
    }

    #[test]
    fn alternation_ignores_unseen_squares() {
        let row: Vec<Option<f64>> = (0..8).map(|k| Some(if k % 2 == 0 { 200.0 } else { 100.0 })).collect();
        assert_eq!(row_alternation(&row), 50.0);
        let mut half = row.clone();
        half[..5].iter_mut().for_each(|c| *c = None);
        assert_eq!(row_alternation(&half), 0.0);
    }
}
