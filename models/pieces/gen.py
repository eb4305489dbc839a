"""Synthetic training data for the piece model: seeded, reproducible.

Each sample is rendered the way the real pipeline sees a board:

1. a camera picture (640x480, or 480x640) is drawn *in camera space*: the board plane
   (squares with wood/vinyl/plastic texture, border, table) is warped in by a random
   homography (camera height, tilt, rotation, board filling the frame or a small part
   of it, board partly outside the picture), then every piece is drawn as a stack of
   shaded discs from its base point to its top point, where the top point lies further
   from the principal point than the base (a tall piece leans outward, as an overhead
   lens shows it); pieces are off-centre in their squares, cast shadows away from the
   light, and hand-like shapes (palm + fingers + arm) may cover part of the board;
2. the picture gets lens distortion, exposure/white-balance changes, blur, sensor noise
   and a JPEG re-encode (video compression);
3. it is rectified with the *true* corners (plus a little click error) into THE
   rectified view (`geometry::RectifiedView::STANDARD`: 32 px a square, one square of
   margin, 320x320, a1 bottom-left), exactly like `calibration::rectify::Rectifier`
   does in Rust, with the same `known` mask for pixels that fell outside the picture.

So the network is trained on the same resampling, margin, leaning pieces and unknown
regions as it meets at run time. Labels per square (a1=0 .. h8=63): occupancy
(0 empty, 1 white, 2 black), type (0..5 = P N B R Q K, -1 when empty) and an `ignore`
flag for squares a hand covers too much to say.

Usage: python gen.py --out DIR --count N --seed S   (writes DIR/data_S.npz)
"""

import argparse
import math
import os

import cv2
import numpy as np

S = 32  # rectified px per square
M = 1  # rectified margin in squares
VIEW = S * (8 + 2 * M)
BOARD_PX = 40  # board-plane texture resolution, px per square

# Piece geometry in square units: base radius, top radius, height (square units),
# kind of top decoration.
PIECES = {
    0: dict(rb=0.30, rt=0.17, h=0.55, top="ball"),  # pawn
    1: dict(rb=0.34, rt=0.20, h=0.80, top="head"),  # knight
    2: dict(rb=0.33, rt=0.13, h=0.95, top="mitre"),  # bishop
    3: dict(rb=0.34, rt=0.27, h=0.70, top="crenel"),  # rook
    4: dict(rb=0.37, rt=0.22, h=1.15, top="crown"),  # queen
    5: dict(rb=0.38, rt=0.18, h=1.35, top="cross"),  # king
}


def rand_color(rng, base, spread):
    c = np.array(base, np.float32) + rng.normal(0, spread, 3)
    return np.clip(c, 0, 255)


# (light square, dark square) BGR palettes: wood, tournament vinyl green/brown/blue,
# plastic, printed, low contrast.
BOARD_STYLES = [
    ((175, 215, 235), (60, 95, 160)),  # maple / mahogany
    ((150, 200, 225), (40, 70, 120)),  # light / dark wood
    ((200, 230, 240), (70, 120, 190)),  # birch / light brown
    ((200, 235, 240), (90, 140, 90)),  # tournament green vinyl
    ((190, 225, 235), (70, 100, 140)),  # buff / brown vinyl
    ((215, 215, 215), (140, 120, 80)),  # white / blue
    ((225, 225, 225), (60, 60, 60)),  # plastic black/white
    ((140, 170, 190), (90, 115, 140)),  # low contrast wood
    ((120, 150, 170), (70, 90, 110)),  # dark low contrast
    ((160, 200, 215), (90, 90, 90)),  # walnut greyish (folding board)
]

# (white set, black set) BGR bases
PIECE_STYLES = [
    ((170, 205, 225), (35, 45, 60)),  # boxwood / ebonised
    ((160, 200, 230), (40, 60, 95)),  # light wood / dark brown wood
    ((225, 230, 235), (30, 30, 30)),  # white / black plastic
    ((200, 215, 225), (45, 40, 40)),  # ivory / black
    ((140, 180, 210), (55, 75, 110)),  # low contrast wood
    ((190, 210, 220), (70, 70, 80)),  # greyish plastic
    ((120, 160, 190), (30, 45, 75)),  # dark "white" pieces
]


def wood_texture(rng, h, w, strength):
    """Grain: low-frequency stripes along a random axis plus fine noise, mean 1.0."""
    small = rng.normal(0, 1, (max(2, h // 16), max(2, w // 4))).astype(np.float32)
    tex = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    if rng.random() < 0.5:
        tex = tex.T.copy()
        tex = cv2.resize(tex, (w, h))
    fine = np.empty((h, w), np.float32)
    cv2.randn(fine, 0.0, 0.3)
    tex += fine
    return 1.0 + strength * tex


def render_board_plane(rng, labels_font):
    """Top-down board plane with table around it. Returns image (BGR float32) and
    the board's a1..a8 corner coordinates in plane pixels."""
    pad = 3.0  # squares of plane around the playing area (border + table)
    n = int((8 + 2 * pad) * BOARD_PX)
    light, dark = BOARD_STYLES[rng.integers(len(BOARD_STYLES))]
    light = rand_color(rng, light, 12)
    dark = rand_color(rng, dark, 12)
    if rng.random() < 0.15:  # sometimes a random pair, any contrast
        light = rng.uniform(90, 250, 3)
        dark = light * rng.uniform(0.35, 0.85) + rng.normal(0, 15, 3)
    table = rng.uniform(30, 220, 3)
    img = np.empty((n, n, 3), np.float32)
    img[:] = table
    img *= wood_texture(rng, n, n, rng.uniform(0, 0.12))[..., None]
    border = rng.uniform(0.0, 0.9)
    border_col = dark * rng.uniform(0.6, 1.3) if rng.random() < 0.6 else light * rng.uniform(0.8, 1.05)
    o = pad * BOARD_PX
    b0 = int(o - border * BOARD_PX)
    b1 = int(o + (8 + border) * BOARD_PX)
    img[b0:b1, b0:b1] = border_col
    if labels_font and border > 0.35:
        col = dark * 0.5 if rng.random() < 0.5 else light
        txt = np.zeros((n, n), np.uint8)
        for i in range(8):
            c = int(o + (i + 0.4) * BOARD_PX)
            for y in (b0 + int(0.7 * (o - b0)), int(o + 8 * BOARD_PX + 0.6 * (o - b0))):
                cv2.putText(txt, "ABCDEFGH"[i], (c, y), cv2.FONT_HERSHEY_SIMPLEX, 0.4, 255, 1, cv2.LINE_AA)
                cv2.putText(txt, "12345678"[i], (y - 8, c + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.4, 255, 1, cv2.LINE_AA)
        a = txt.astype(np.float32)[..., None] / 255
        img[:] = img * (1 - a) + a * col
    grain = wood_texture(rng, 8 * BOARD_PX, 8 * BOARD_PX, rng.uniform(0.0, 0.15))
    sq = np.empty((8 * BOARD_PX, 8 * BOARD_PX, 3), np.float32)
    for r in range(8):
        for f in range(8):
            c = light if (r + f) % 2 == 1 else dark  # a1 (r=0,f=0) is dark
            c = c * rng.uniform(0.94, 1.06)
            y0 = (7 - r) * BOARD_PX
            sq[y0 : y0 + BOARD_PX, f * BOARD_PX : (f + 1) * BOARD_PX] = c
    sq *= grain[..., None]
    oi = int(o)
    img[oi : oi + 8 * BOARD_PX, oi : oi + 8 * BOARD_PX] = sq
    if rng.random() < 0.3:  # grid lines
        lc = tuple(float(v) for v in rng.uniform(20, 120, 3))
        for i in range(9):
            p = int(o + i * BOARD_PX)
            cv2.line(img, (oi, p), (oi + 8 * BOARD_PX, p), lc, 1)
            cv2.line(img, (p, oi), (p, oi + 8 * BOARD_PX), lc, 1)
    # board coordinates (x right, y up, in squares) -> plane px
    def b2p(x, y):
        return (o + x * BOARD_PX, o + (8 - y) * BOARD_PX)

    return img, b2p, light


def random_position(rng):
    """occ[64] in {0,1,2}, typ[64] in {-1..5}. A mix of start-like positions, middle
    games and sparse endgames; kings always present, pawns never on ranks 1/8."""
    occ = np.zeros(64, np.int64)
    typ = np.full(64, -1, np.int64)
    u = rng.random()
    if u < 0.04:
        return occ, typ
    if u < 0.30:  # the start position, with a few random moves' worth of changes
        back = [3, 1, 2, 4, 5, 2, 1, 3]
        for f in range(8):
            occ[f], typ[f] = 1, back[f]
            occ[8 + f], typ[8 + f] = 1, 0
            occ[48 + f], typ[48 + f] = 2, 0
            occ[56 + f], typ[56 + f] = 2, back[f]
        for _ in range(rng.integers(0, 8)):
            src = rng.choice(np.flatnonzero(occ))
            dst = rng.integers(16, 48)
            if occ[dst] == 0:
                occ[dst], typ[dst] = occ[src], typ[src]
                occ[src], typ[src] = 0, -1
        if rng.random() < 0.5:  # White at the top instead (boards are filmed any way round)
            occ, typ = occ.reshape(8, 8)[::-1].reshape(64).copy(), typ.reshape(8, 8)[::-1].reshape(64).copy()
            occ = np.where(occ == 0, 0, 3 - occ)
        return occ, typ
    n_each = rng.integers(1, 17, size=2)
    free = list(rng.permutation(64))
    for color in (1, 2):
        n = n_each[color - 1]
        kinds = [5] + list(rng.choice([0, 0, 0, 0, 1, 2, 3, 4], size=n - 1))
        for k in kinds:
            for i, s in enumerate(free):
                if k == 0 and (s < 8 or s >= 56):
                    continue
                occ[s], typ[s] = color, k
                free.pop(i)
                break
    return occ, typ


def draw_piece(img, base, top, rb, rt, color, light_dir, kind, top_kind, rng, dirv):
    """A piece seen from above: discs swept from base (radius rb) to top (rt), lit from
    light_dir; then the top decoration. All in camera pixels."""
    steps = 6
    col = np.array(color, np.float32)
    rim = rng.uniform(0.55, 0.95)
    for i in range(steps + 1):
        t = i / steps
        c = base * (1 - t) + top * t
        r = rb * (1 - t) + rt * t
        # body of a turned piece narrows in the middle
        r *= 1.0 - 0.25 * math.sin(math.pi * t) if top_kind != "crenel" else 1.0
        shade = 0.55 + 0.45 * t
        centre = (int(c[0] * 4), int(c[1] * 4))
        # darker rim: the turned body curves away from the camera at its edge
        cv2.circle(img, centre, max(1, int(r * 4)), tuple(float(v) for v in col * shade * rim), -1, cv2.LINE_AA, 2)
        cv2.circle(img, centre, max(1, int(r * 0.75 * 4)), tuple(float(v) for v in col * shade), -1, cv2.LINE_AA, 2)
    # highlight toward the light on the top disc
    hl = top + light_dir * rt * 0.45
    cv2.circle(img, (int(hl[0] * 4), int(hl[1] * 4)), max(1, int(rt * 0.45 * 4)), tuple(float(v) for v in np.minimum(col * 1.35 + 25, 255)), -1, cv2.LINE_AA, 2)
    tcol = tuple(float(v) for v in col * 0.8)
    tp = (int(top[0] * 4), int(top[1] * 4))
    s = rt
    if top_kind == "ball":
        pass
    elif top_kind == "head":  # knight: elongated head facing a random direction
        ang = rng.uniform(0, 360)
        cv2.ellipse(img, tp, (max(1, int(s * 1.5 * 4)), max(1, int(s * 0.7 * 4))), ang, 0, 360, tcol, -1, cv2.LINE_AA, 2)
        e = top + np.array([math.cos(math.radians(ang)), math.sin(math.radians(ang))]) * s * 0.9
        cv2.circle(img, (int(e[0] * 4), int(e[1] * 4)), max(1, int(s * 0.45 * 4)), tuple(float(v) for v in col * 0.65), -1, cv2.LINE_AA, 2)
    elif top_kind == "mitre":
        cv2.circle(img, tp, max(1, int(s * 0.5 * 4)), tcol, -1, cv2.LINE_AA, 2)
        ang = rng.uniform(0, math.pi)
        d = np.array([math.cos(ang), math.sin(ang)]) * s
        cv2.line(img, tuple(int(v * 4) for v in top - d), tuple(int(v * 4) for v in top + d), tuple(float(v) for v in col * 0.5), max(1, int(s * 0.25)), cv2.LINE_AA, 2)
    elif top_kind == "crenel":
        cv2.circle(img, tp, max(1, int(s * 0.65 * 4)), tuple(float(v) for v in col * 0.6), -1, cv2.LINE_AA, 2)
    elif top_kind == "crown":
        for k in range(8):
            a = 2 * math.pi * k / 8
            p = top + np.array([math.cos(a), math.sin(a)]) * s * 0.85
            cv2.circle(img, (int(p[0] * 4), int(p[1] * 4)), max(1, int(s * 0.2 * 4)), tuple(float(v) for v in np.minimum(col * 1.2 + 10, 255)), -1, cv2.LINE_AA, 2)
        cv2.circle(img, tp, max(1, int(s * 0.35 * 4)), tcol, -1, cv2.LINE_AA, 2)
    elif top_kind == "cross":
        ang = rng.uniform(0, math.pi)
        for a in (ang, ang + math.pi / 2):
            d = np.array([math.cos(a), math.sin(a)]) * s * 0.8
            cv2.line(img, tuple(int(v * 4) for v in top - d), tuple(int(v * 4) for v in top + d), tcol, max(1, int(s * 0.35)), cv2.LINE_AA, 2)


def camera_homography(rng, W, H):
    """Board (x right, y up, squares) -> camera px, for a random camera: rotation,
    board size in the picture, tilt (perspective), position (board may leave the
    picture). Also returns the principal point (lean centre) and the camera height in
    squares (for the lean factor)."""
    side = rng.uniform(0.45, 1.15) * min(W, H)  # board side in px
    rot = rng.integers(4) * 90 + rng.normal(0, 4)
    cx = W / 2 + rng.normal(0, 0.12) * W
    cy = H / 2 + rng.normal(0, 0.12) * H
    a = math.radians(rot)
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    pts = []
    for x, y in [(0, 0), (8, 0), (8, 8), (0, 8)]:
        v = np.array([x - 4, 4 - y]) * side / 8
        pts.append(R @ v + [cx, cy])
    pts = np.array(pts, np.float32)
    # tilt: move the corners by a random projective jitter (keystone)
    tilt = rng.uniform(0, 0.10)
    axis = rng.uniform(0, 2 * math.pi)
    d = np.array([math.cos(axis), math.sin(axis)])
    c = pts.mean(0)
    for i in range(4):
        along = np.dot(pts[i] - c, d) / (side / 2)
        pts[i] = c + (pts[i] - c) * (1 + tilt * along)
    pts += rng.normal(0, 0.006 * side, pts.shape)
    if rng.random() < 0.3:
        # the board reaches the picture's edge (as in a tightly framed overhead shot):
        # the margin beyond that board edge is unknown and leaning pieces are cut off
        axis_i = rng.integers(2)
        lim = (W, H)[axis_i]
        if rng.random() < 0.5:
            pts[:, axis_i] += -pts[:, axis_i].min() + rng.normal(0, 0.03) * side
        else:
            pts[:, axis_i] += lim - pts[:, axis_i].max() + rng.normal(0, 0.03) * side
    Hm = cv2.getPerspectiveTransform(np.float32([(0, 0), (8, 0), (8, 8), (0, 8)]), pts)
    # camera height above the board in squares: the lean of a piece's top is
    # (distance from the principal point) * h / (cam_h - h)
    cam_h = rng.uniform(6, 16) * (min(W, H) / side) ** 0.3
    pp = np.array([W / 2, H / 2]) + rng.normal(0, 0.05 * W, 2)
    return Hm, pts, cam_h, pp


def apply_hom(Hm, x, y):
    v = Hm @ np.array([x, y, 1.0])
    return v[:2] / v[2]


_GRIDS = {}


def grids(W, H):
    """Per picture size: pixel grids normalised by the longer side (for distortion)
    and to [-1, 1] (for light gradients)."""
    if (W, H) not in _GRIDS:
        f = max(W, H)
        xs, ys = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
        xn, yn = (xs - W / 2) / f, (ys - H / 2) / f
        _GRIDS[(W, H)] = (xn, yn, xn * xn + yn * yn, 2 * xs / W - 1, 2 * ys / H - 1)
    return _GRIDS[(W, H)]


def distort_maps(rng, W, H):
    k1 = rng.normal(0, 0.08)
    if abs(k1) < 0.01:
        return None, 0.0
    f = max(W, H)
    xn, yn, r2, _, _ = grids(W, H)
    s = 1 + k1 * r2
    return (xn * s * f + W / 2, yn * s * f + H / 2), k1


def undistorted_to_distorted_point(p, k1, W, H):
    """The distorted picture at q shows the undistorted point q*(1+k1 r(q)^2); invert by
    fixed-point iteration for the corner positions."""
    f = max(W, H)
    u = (np.array(p) - [W / 2, H / 2]) / f
    q = u.copy()
    for _ in range(10):
        q = u / (1 + k1 * np.dot(q, q))
    return q * f + [W / 2, H / 2]


def draw_hand(rng, img, shadow, W, H, Hm, skin):
    """A hand-like shape entering over a board edge: arm + palm + fingers, with its
    shadow. Returns the hand mask (camera px, uint8)."""
    mask = np.zeros((H, W), np.uint8)
    # target point on the board
    tx, ty = rng.uniform(0, 8, 2)
    edge = rng.integers(4)
    start = [(tx, -4), (12, ty), (tx, 12), (-4, ty)][edge]
    p1 = apply_hom(Hm, *start)
    p2 = apply_hom(Hm, tx, ty)
    sq_px = np.linalg.norm(apply_hom(Hm, tx + 1, ty) - p2)
    w = sq_px * rng.uniform(0.9, 1.6)
    cv2.line(mask, tuple(int(v) for v in p1), tuple(int(v) for v in p2), 255, max(2, int(w)), cv2.LINE_AA)
    d = (p2 - p1) / (np.linalg.norm(p2 - p1) + 1e-6)
    n = np.array([-d[1], d[0]])
    for k in range(rng.integers(2, 6)):
        off = (k - 2) * w * 0.22
        ln = sq_px * rng.uniform(0.4, 1.1)
        a = p2 + n * off
        b = a + d * ln + n * rng.normal(0, 0.2) * ln
        cv2.line(mask, tuple(int(v) for v in a), tuple(int(v) for v in b), 255, max(2, int(w * 0.2)), cv2.LINE_AA)
    sh = np.roll(mask, (int(rng.normal(0, 0.5) * sq_px), int(rng.normal(0, 0.5) * sq_px)), axis=(0, 1))
    shadow[sh > 0] *= rng.uniform(0.4, 0.8)
    m = mask.astype(np.float32)[..., None] / 255
    shade = np.float32(rng.uniform(0.85, 1.1))
    img[:] = img * (1 - m) + m * skin * shade
    return mask


def render_sample(rng):
    W, H = (640, 480) if rng.random() < 0.8 else (480, 640)
    plane, b2p, light_sq = render_board_plane(rng, labels_font=rng.random() < 0.5)
    Hm, corners, cam_h, pp = camera_homography(rng, W, H)
    # plane px -> board -> camera
    P = cv2.getPerspectiveTransform(np.float32([b2p(0, 0), b2p(8, 0), b2p(8, 8), b2p(0, 8)]), np.float32([(0, 0), (8, 0), (8, 8), (0, 8)]))
    img = cv2.warpPerspective(plane, Hm @ P, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    occ, typ = random_position(rng)
    wcol, bcol = PIECE_STYLES[rng.integers(len(PIECE_STYLES))]
    wcol = rand_color(rng, wcol, 15)
    bcol = rand_color(rng, bcol, 10)
    if rng.random() < 0.15:
        wcol = rng.uniform(110, 250, 3)
        bcol = wcol * rng.uniform(0.15, 0.6)
    elif rng.random() < 0.15:  # light pieces of nearly the light squares' colour
        wcol = np.clip(light_sq * rng.uniform(0.8, 1.05) + rng.normal(0, 8, 3), 0, 255)
    light_ang = rng.uniform(0, 2 * math.pi)
    light_dir = np.array([math.cos(light_ang), math.sin(light_ang)])
    light_elev = rng.uniform(0.3, 1.5)  # shadow length per unit height (squares)
    size_scale = rng.uniform(0.8, 1.15)
    tall_scale = rng.uniform(0.7, 1.4)

    shadow = np.ones((H, W), np.float32)
    shadow_layer = np.zeros((H * 4 // 4, W), np.uint8)
    pieces = []
    for s in np.flatnonzero(occ):
        f, r = s % 8, s // 8
        g = PIECES[typ[s]]
        bx = f + 0.5 + rng.normal(0, 0.07)
        by = r + 0.5 + rng.normal(0, 0.07)
        base = apply_hom(Hm, bx, by)
        px_per_sq = np.linalg.norm(apply_hom(Hm, bx + 0.5, by) - apply_hom(Hm, bx - 0.5, by))
        h = g["h"] * tall_scale
        lean = (base - pp) * (h / max(cam_h - h, 1.0))
        top = base + lean
        rb, rt = g["rb"] * size_scale * px_per_sq, g["rt"] * size_scale * px_per_sq
        # shadow: a smeared disc from the base away from the light
        tip = base - light_dir * h * light_elev * px_per_sq * 0.6
        cv2.line(shadow_layer, tuple(int(v) for v in base), tuple(int(v) for v in tip), 255, max(1, int(rb * 1.6)), cv2.LINE_AA)
        pieces.append((np.linalg.norm(base - pp), base, top, rb, rt, occ[s], typ[s]))
    ks = int(max(3, 0.02 * min(W, H))) | 1
    shadow_soft = cv2.GaussianBlur(shadow_layer, (ks, ks), 0).astype(np.float32) / 255
    shadow *= 1 - shadow_soft * rng.uniform(0.15, 0.55)
    # pieces nearer the principal point are drawn first: outer pieces' tops lean over them
    pieces.sort(key=lambda p: p[0])
    canvas = (img * shadow[..., None]).astype(np.float32)
    for _, base, top, rb, rt, c, t in pieces:
        col = (wcol if c == 1 else bcol) * rng.uniform(0.92, 1.08)
        draw_piece(canvas, base, top, rb, rt, col, light_dir, t, PIECES[t]["top"], rng, None)
    img = canvas

    hand = np.zeros((H, W), np.uint8)
    if rng.random() < 0.25:
        skin = rand_color(rng, (120, 150, 200), 30) if rng.random() < 0.8 else rng.uniform(30, 220, 3)
        shadow2 = np.ones((H, W), np.float32)
        hand = draw_hand(rng, img, shadow2, W, H, Hm, skin)
    # global light: exposure, gradient, white balance, moving shadow blob
    _, _, _, gx, gy = grids(W, H)
    a = rng.uniform(0, 2 * math.pi)
    grad = 1 + rng.uniform(0, 0.35) * (math.cos(a) * gx + math.sin(a) * gy)
    if rng.random() < 0.45:  # body / arm shadow over part of the board
        bx, by = rng.uniform(-1, 1, 2)
        blob = np.exp(-(((gx - bx) ** 2 + (gy - by) ** 2) / rng.uniform(0.05, 0.6)))
        grad *= 1 - rng.uniform(0.2, 0.7) * blob
    gain = (rng.uniform(0.55, 1.35) * rng.uniform(0.9, 1.1, 3)).astype(np.float32)
    img = img * (grad[..., None] * gain)

    maps, k1 = distort_maps(rng, W, H)
    if maps is not None:
        img = cv2.remap(img, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        hand = cv2.remap(hand, maps[0], maps[1], cv2.INTER_NEAREST)
        corners = np.array([undistorted_to_distorted_point(p, k1, W, H) for p in corners], np.float32)
    # blur (defocus or motion)
    if rng.random() < 0.6:
        sigma = rng.uniform(0.3, 1.6)
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    if rng.random() < 0.15:
        k = rng.integers(3, 8)
        ker = np.zeros((k, k), np.float32)
        ker[k // 2] = 1.0 / k
        Mrot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        ker = cv2.warpAffine(ker, Mrot, (k, k))
        img = cv2.filter2D(img, -1, ker / max(ker.sum(), 1e-6))
    noise = np.empty(img.shape, np.float32)
    cv2.randn(noise, 0.0, float(rng.uniform(0, 8)))
    img = img + noise
    img = np.clip(img, 0, 255).astype(np.uint8)
    q = int(rng.uniform(25, 95))
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    img = cv2.imdecode(enc, cv2.IMREAD_COLOR)

    # rectify with the true corners (a1, h1, h8, a8) plus a small click error
    click = corners + rng.normal(0, 0.004 * np.linalg.norm(corners[1] - corners[0]), corners.shape)
    dst = np.float32([[(x + M) * S, (8 + M - y) * S] for x, y in [(0, 0), (8, 0), (8, 8), (0, 8)]])
    R = cv2.getPerspectiveTransform(np.float32(click), dst)
    rect = cv2.warpPerspective(img, R, (VIEW, VIEW), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    known = cv2.warpPerspective(np.full((H, W), 255, np.uint8), R, (VIEW, VIEW), flags=cv2.INTER_NEAREST)
    hand_r = cv2.warpPerspective(hand, R, (VIEW, VIEW), flags=cv2.INTER_NEAREST)
    # squares: ignore when a hand covers > 25 % of the square or its centre is unknown
    cover = cv2.resize((hand_r > 0).astype(np.float32), (10, 10), interpolation=cv2.INTER_AREA)[1:9, 1:9][::-1]
    kn = cv2.resize((known > 0).astype(np.float32), (10, 10), interpolation=cv2.INTER_AREA)[1:9, 1:9][::-1]
    ignore = ((cover > 0.25) | (kn < 0.5)).reshape(64)
    return rect, known, occ, typ, ignore


def generate(count, seed):
    rng = np.random.default_rng(seed)
    cv2.setRNGSeed(seed)  # cv2.randn noise
    X = np.empty((count, VIEW, VIEW, 4), np.uint8)
    occ = np.empty((count, 64), np.int8)
    typ = np.empty((count, 64), np.int8)
    ign = np.empty((count, 64), bool)
    for i in range(count):
        rect, known, o, t, g = render_sample(rng)
        X[i, ..., :3] = rect
        X[i, ..., 3] = known
        occ[i], typ[i], ign[i] = o, t, g
    return X, occ, typ, ign


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--preview", action="store_true", help="also write a contact sheet of the first 16")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    os.makedirs(args.out, exist_ok=True)
    X, occ, typ, ign = generate(args.count, args.seed)
    np.savez(os.path.join(args.out, f"data_{args.seed}.npz"), X=X, occ=occ, typ=typ, ign=ign)
    if args.preview:
        tiles = [X[i, ..., :3] for i in range(min(16, len(X)))]
        while len(tiles) % 4:
            tiles.append(np.zeros_like(tiles[0]))
        rows = [np.hstack(tiles[i : i + 4]) for i in range(0, len(tiles), 4)]
        cv2.imwrite(os.path.join(args.out, f"preview_{args.seed}.png"), np.vstack(rows))


if __name__ == "__main__":
    main()
