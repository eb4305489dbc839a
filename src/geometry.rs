//! Board geometry shared by every stage: board coordinates, the homography between
//! source pixels and the board plane, and the one definition of the rectified view.
//!
//! Pure Rust (no OpenCV) so that the tracker, the hand fusion and their tests can map
//! points without the vision stack.
//!
//! # Board coordinates
//! A point on the board plane is measured in *square units* as White sees the board:
//! `x` runs from the a-file edge (0) to the h-file edge (8), `y` from the rank-1 edge
//! (0) to the rank-8 edge (8). Square a1 covers `[0,1) x [0,1)`, h8 covers
//! `[7,8) x [7,8)`. Points outside `[0,8]` are off the board (the margin, where hands
//! come in from).
//!
//! # The rectified view
//! A top-down image of the board with a margin of [`RectifiedView::margin_squares`]
//! squares on every side, a1 at the bottom left as White sees it (rank 8 at the top,
//! the a-file on the left). [`RectifiedView::STANDARD`] is the view the piece model is
//! trained on and the tracker and occluder work in.

use serde::{Deserialize, Serialize};
use shakmaty::{File, Rank, Square};

/// A point on the board plane, in square units (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BoardPoint {
    pub x: f64,
    pub y: f64,
}

impl BoardPoint {
    pub const fn new(x: f64, y: f64) -> Self {
        BoardPoint { x, y }
    }

    /// The square under this point, or `None` when the point is off the board.
    pub fn square(self) -> Option<Square> {
        if !(0.0..8.0).contains(&self.x) || !(0.0..8.0).contains(&self.y) {
            return None;
        }
        let file = File::new(self.x as u32);
        let rank = Rank::new(self.y as u32);
        Some(Square::from_coords(file, rank))
    }

    /// The centre of a square.
    pub fn centre_of(sq: Square) -> Self {
        BoardPoint::new(u32::from(sq.file()) as f64 + 0.5, u32::from(sq.rank()) as f64 + 0.5)
    }

    /// Distance to the nearest board edge, negative inside the board (how far in a
    /// point is), positive outside.
    pub fn outside_by(self) -> f64 {
        let dx = (-self.x).max(self.x - 8.0);
        let dy = (-self.y).max(self.y - 8.0);
        dx.max(dy)
    }

    /// Where a point seen at a height above the board really stands on the board.
    ///
    /// An overhead camera sees a point at height `h` (a fingertip on top of a piece,
    /// the top of a tall piece) displaced away from the point below the camera, by a
    /// factor `H / (H - h)` for a camera at height `H`. `height_ratio` is `h / H`
    /// (a 5 cm piece top under a camera 80 cm up: about 0.06); the camera is taken to
    /// be above the board's centre, which an overhead rig aims for.
    pub fn lowered(self, height_ratio: f64) -> BoardPoint {
        let k = 1.0 - height_ratio.clamp(0.0, 0.5);
        BoardPoint::new(4.0 + (self.x - 4.0) * k, 4.0 + (self.y - 4.0) * k)
    }

    /// The board edge nearest to this point.
    pub fn nearest_edge(self) -> BoardEdge {
        let d = [
            (self.y, BoardEdge::WhiteSide),
            (8.0 - self.y, BoardEdge::BlackSide),
            (self.x, BoardEdge::AFile),
            (8.0 - self.x, BoardEdge::HFile),
        ];
        d.iter()
            .copied()
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, e)| e)
            .unwrap_or(BoardEdge::WhiteSide)
    }
}

/// An edge of the board, named as the players see it. Arms enter over one of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BoardEdge {
    /// The rank-1 edge, where White sits.
    WhiteSide,
    /// The rank-8 edge, where Black sits.
    BlackSide,
    /// The a-file edge (White's left).
    AFile,
    /// The h-file edge (White's right).
    HFile,
}

impl BoardEdge {
    /// The player who sits at this edge, if a player does.
    pub fn player(self) -> Option<shakmaty::Color> {
        match self {
            BoardEdge::WhiteSide => Some(shakmaty::Color::White),
            BoardEdge::BlackSide => Some(shakmaty::Color::Black),
            BoardEdge::AFile | BoardEdge::HFile => None,
        }
    }
}

/// A plane-to-plane projective map, row-major 3x3, applied to column vectors
/// `(x, y, 1)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Homography(pub [[f64; 3]; 3]);

/// Why a homography could not be built.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum GeometryError {
    #[error("the four points are degenerate (three of them on one line, or two equal)")]
    Degenerate,
    #[error("the homography is singular and has no inverse")]
    Singular,
}

impl Homography {
    pub const IDENTITY: Homography = Homography([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);

    /// The homography that maps each `from[i]` onto `to[i]` (exactly four pairs).
    pub fn from_points(from: [(f64, f64); 4], to: [(f64, f64); 4]) -> Result<Self, GeometryError> {
        // Direct linear transform with h33 = 1: an 8x8 system, solved by Gaussian
        // elimination with partial pivoting.
        let mut a = [[0.0f64; 9]; 8];
        for i in 0..4 {
            let (x, y) = from[i];
            let (u, v) = to[i];
            a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
            a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
        }
        let h = solve8(a).ok_or(GeometryError::Degenerate)?;
        let m = Homography([[h[0], h[1], h[2]], [h[3], h[4], h[5]], [h[6], h[7], 1.0]]);
        // Reject maps that fold the quadrilateral (all points must keep w > 0).
        let ws: Vec<f64> = from.iter().map(|&(x, y)| m.0[2][0] * x + m.0[2][1] * y + 1.0).collect();
        if ws.iter().any(|w| w.abs() < 1e-12) || !(ws.iter().all(|&w| w > 0.0) || ws.iter().all(|&w| w < 0.0)) {
            return Err(GeometryError::Degenerate);
        }
        Ok(m)
    }

    /// Maps a point; `None` when it lies on the horizon line.
    pub fn apply(&self, (x, y): (f64, f64)) -> Option<(f64, f64)> {
        let m = &self.0;
        let w = m[2][0] * x + m[2][1] * y + m[2][2];
        if w.abs() < 1e-12 {
            return None;
        }
        Some((
            (m[0][0] * x + m[0][1] * y + m[0][2]) / w,
            (m[1][0] * x + m[1][1] * y + m[1][2]) / w,
        ))
    }

    pub fn inverse(&self) -> Result<Self, GeometryError> {
        let m = &self.0;
        let c = |r0: usize, r1: usize, c0: usize, c1: usize| m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
        let det = m[0][0] * c(1, 2, 1, 2) - m[0][1] * c(1, 2, 0, 2) + m[0][2] * c(1, 2, 0, 1);
        if det.abs() < 1e-15 {
            return Err(GeometryError::Singular);
        }
        let inv = [
            [c(1, 2, 1, 2), -c(0, 2, 1, 2), c(0, 1, 1, 2)],
            [-c(1, 2, 0, 2), c(0, 2, 0, 2), -c(0, 1, 0, 2)],
            [c(1, 2, 0, 1), -c(0, 2, 0, 1), c(0, 1, 0, 1)],
        ];
        let mut out = [[0.0; 3]; 3];
        for (r, row) in inv.iter().enumerate() {
            for (k, v) in row.iter().enumerate() {
                out[r][k] = v / det;
            }
        }
        Ok(Homography(out))
    }

    /// `self` after `first`: the map `p -> self(first(p))`.
    pub fn after(&self, first: &Homography) -> Homography {
        let (a, b) = (&self.0, &first.0);
        let mut out = [[0.0; 3]; 3];
        for (r, row) in out.iter_mut().enumerate() {
            for (k, v) in row.iter_mut().enumerate() {
                *v = (0..3).map(|j| a[r][j] * b[j][k]).sum();
            }
        }
        Homography(out)
    }
}

fn solve8(mut a: [[f64; 9]; 8]) -> Option<[f64; 8]> {
    for col in 0..8 {
        let pivot = (col..8).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        let pivot_row = a[col];
        for (row, r) in a.iter_mut().enumerate() {
            let f = r[col] / pivot_row[col];
            if row != col && f != 0.0 {
                for (x, p) in r[col..].iter_mut().zip(&pivot_row[col..]) {
                    *x -= f * p;
                }
            }
        }
    }
    let mut x = [0.0; 8];
    for i in 0..8 {
        x[i] = a[i][8] / a[i][i];
    }
    Some(x)
}

/// The board's outer corners in the order the calibration file keeps them.
pub const CORNER_ORDER: [&str; 4] = ["a1", "h1", "h8", "a8"];

/// Board coordinates of the outer corners of a1, h1, h8, a8, in that order.
pub const CORNERS_BOARD: [(f64, f64); 4] = [(0.0, 0.0), (8.0, 0.0), (8.0, 8.0), (0.0, 8.0)];

/// The homography from source pixels to board coordinates, given the four outer
/// corners in source pixels in the order a1, h1, h8, a8.
pub fn image_to_board(corners_px: [(f64, f64); 4]) -> Result<Homography, GeometryError> {
    Homography::from_points(corners_px, CORNERS_BOARD)
}

/// The one definition of the rectified (top-down) view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RectifiedView {
    /// Pixels per square side.
    pub px_per_square: u32,
    /// Margin around the board, in squares, on every side (hands come in over it).
    pub margin_squares: u32,
}

impl RectifiedView {
    /// The view the piece model is trained on and the tracker works in:
    /// 32 px a square and one square of margin, 320 x 320 pixels.
    pub const STANDARD: RectifiedView = RectifiedView {
        px_per_square: 32,
        margin_squares: 1,
    };

    /// Width and height in pixels (the view is square).
    pub const fn size(&self) -> u32 {
        self.px_per_square * (8 + 2 * self.margin_squares)
    }

    /// Board coordinates to rectified pixel coordinates (continuous; pixel `(i, j)`
    /// covers `[i, i+1) x [j, j+1)`).
    pub fn board_to_px(&self, p: BoardPoint) -> (f64, f64) {
        let s = self.px_per_square as f64;
        let m = self.margin_squares as f64;
        ((p.x + m) * s, (8.0 + m - p.y) * s)
    }

    /// Rectified pixel coordinates to board coordinates.
    pub fn px_to_board(&self, (u, v): (f64, f64)) -> BoardPoint {
        let s = self.px_per_square as f64;
        let m = self.margin_squares as f64;
        BoardPoint::new(u / s - m, 8.0 + m - v / s)
    }

    /// The pixel rectangle `(x0, y0, width, height)` of a square.
    pub fn square_rect(&self, sq: Square) -> (u32, u32, u32, u32) {
        let s = self.px_per_square;
        let x0 = (self.margin_squares + u32::from(sq.file())) * s;
        let y0 = (self.margin_squares + 7 - u32::from(sq.rank())) * s;
        (x0, y0, s, s)
    }

    /// The homography from board coordinates to rectified pixels.
    pub fn board_to_px_homography(&self) -> Homography {
        let s = self.px_per_square as f64;
        let m = self.margin_squares as f64;
        Homography([[s, 0.0, m * s], [0.0, -s, (8.0 + m) * s], [0.0, 0.0, 1.0]])
    }

    /// The homography from source pixels to rectified pixels, for a calibration whose
    /// source-to-board map is `image_to_board`.
    pub fn from_source(&self, image_to_board: &Homography) -> Homography {
        self.board_to_px_homography().after(image_to_board)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: (f64, f64), b: (f64, f64)) -> bool {
        (a.0 - b.0).abs() < 1e-6 && (a.1 - b.1).abs() < 1e-6
    }

    #[test]
    fn homography_maps_the_four_corners_and_inverts() {
        // The scholarsmate.avi corners (a1 bottom-right, h1 top-right, h8 top-left, a8 bottom-left).
        let px = [(507.0, 377.0), (506.0, 10.0), (140.0, 5.0), (137.0, 374.0)];
        let h = image_to_board(px).unwrap();
        for (p, b) in px.iter().zip(CORNERS_BOARD) {
            assert!(close(h.apply(*p).unwrap(), b));
        }
        let inv = h.inverse().unwrap();
        for (p, b) in px.iter().zip(CORNERS_BOARD) {
            assert!(close(inv.apply(b).unwrap(), *p));
        }
        // e2 lies near the right edge, rank 2 from the right.
        let e2 = h.apply((438.0, 168.0)).map(|(x, y)| BoardPoint::new(x, y)).unwrap();
        assert_eq!(e2.square(), Some(Square::E2));
    }

    #[test]
    fn degenerate_points_are_an_error() {
        let px = [(0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (0.0, 5.0)];
        assert_eq!(image_to_board(px), Err(GeometryError::Degenerate));
    }

    #[test]
    fn rectified_view_round_trips_and_places_a1_bottom_left() {
        let v = RectifiedView::STANDARD;
        assert_eq!(v.size(), 320);
        assert_eq!(v.square_rect(Square::A1), (32, 256, 32, 32));
        assert_eq!(v.square_rect(Square::H8), (256, 32, 32, 32));
        let p = BoardPoint::new(3.25, 6.5);
        let q = v.px_to_board(v.board_to_px(p));
        assert!(close((p.x, p.y), (q.x, q.y)));
        let h = v.board_to_px_homography();
        assert!(close(h.apply((p.x, p.y)).unwrap(), v.board_to_px(p)));
        assert_eq!(v.px_to_board((48.0, 272.0)).square(), Some(Square::A1));
    }

    #[test]
    fn edges_and_outside() {
        assert_eq!(BoardPoint::new(4.0, -0.5).nearest_edge(), BoardEdge::WhiteSide);
        assert_eq!(BoardPoint::new(8.4, 4.0).nearest_edge(), BoardEdge::HFile);
        assert!(BoardPoint::new(4.0, 4.0).outside_by() < 0.0);
        assert!((BoardPoint::new(4.0, 8.5).outside_by() - 0.5).abs() < 1e-9);
        assert_eq!(BoardPoint::new(8.0, 3.0).square(), None);
    }
}
