"""Quick check of an exported model on the real clip's settled frames (development aid;
the model card's figures come from `arbiter pieces --measure`, the Rust reader).
Never trains on these frames: the only fit is the documented runtime adaptation on the
clip's first settled frame (27).

Usage: python eval_real.py work/pieces.onnx
"""

import json
import sys

import cv2
import numpy as np
import onnxruntime as ort

REAL = "../../../shared/footage/real/"
S, M = 32, 1


def rectify(img, corners):
    dst = np.float32([[(x + M) * S, (8 + M - y) * S] for x, y in [(0, 0), (8, 0), (8, 8), (0, 8)]])
    H = cv2.getPerspectiveTransform(np.float32(corners), dst)
    im = cv2.warpPerspective(img, H, (320, 320), flags=cv2.INTER_LINEAR)
    kn = cv2.warpPerspective(np.full(img.shape[:2], 255, np.uint8), H, (320, 320), flags=cv2.INTER_NEAREST)
    return im, kn


def to_input(im, kn):
    k = (kn > 0).astype(np.float32)
    x = im.astype(np.float32) / 255 * k[..., None]
    return np.concatenate([x, k[..., None]], -1).transpose(2, 0, 1)[None]


def sq(name):
    return (ord(name[1]) - ord("1")) * 8 + ord(name[0]) - ord("a")


def positions():
    """occupancy per ply (0 empty, 1 white, 2 black) from the truth file's moves."""
    occ = np.zeros(64, int)
    typ = np.full(64, -1)
    back = [3, 1, 2, 4, 5, 2, 1, 3]
    for f in range(8):
        occ[f], typ[f], occ[8 + f], typ[8 + f] = 1, back[f], 1, 0
        occ[56 + f], typ[56 + f], occ[48 + f], typ[48 + f] = 2, back[f], 2, 0
    out = [(occ.copy(), typ.copy())]
    t = json.load(open(REAL + "scholarsmate.truth.json"))
    for m in t["moves"]:
        a, b = sq(m["uci"][:2]), sq(m["uci"][2:4])
        occ[b], typ[b] = occ[a], typ[a]
        occ[a], typ[a] = 0, -1
        out.append((occ.copy(), typ.copy()))
    windows = [(0, (27, 27))] + [(m["ply"], tuple(m["still_window"])) for m in t["moves"] if m.get("still_window")]
    return out, windows


def fit_residual(feat, logp, labels, lam=0.05, iters=300, lr=0.5):
    """Residual logistic layer: logits = log p_net + A f + c, L2 on A."""
    n, d = feat.shape
    k = logp.shape[1]
    A = np.zeros((d, k))
    c = np.zeros(k)
    Y = np.eye(k)[labels]
    for _ in range(iters):
        z = logp + feat @ A + c
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        g = (p - Y) / n
        A -= lr * (feat.T @ g + lam * A)
        c -= lr * g.sum(0)
    return A, c


def apply_residual(feat, logp, A, c):
    z = logp + feat @ A + c
    z -= z.max(1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(1, keepdims=True)


def board_medians(im):
    """Per-channel median of the board's squares in a rectified frame."""
    return np.median(im[S * M : -S * M, S * M : -S * M].reshape(-1, 3), 0)


def main():
    sess = ort.InferenceSession(sys.argv[1], providers=["CPUExecutionProvider"])
    cap = cv2.VideoCapture(REAL + "scholarsmate.avi")
    frames = []
    while True:
        ok, f = cap.read()
        if not ok:
            break
        frames.append(f)
    corners = [[507, 377], [506, 10], [140, 5], [137, 374]]
    pos, windows = positions()
    res = {}
    lock = len(sys.argv) > 2 and sys.argv[2] == "--exposure-lock"
    ref = board_medians(rectify(frames[27], corners)[0])
    for ply, (a, b) in windows:
        for fi in range(a, b + 1):
            im, kn = rectify(frames[fi], corners)
            if lock:
                gain = ref / np.maximum(board_medians(im), 1)
                im = np.clip(im * gain, 0, 255).astype(np.uint8)
            occ, feat = sess.run(["occupancy", "features"], {"image": to_input(im, kn).astype(np.float32)})
            res[fi] = (ply, occ[0], feat[0])
    ply0, occ0, feat0 = res[27]
    scale = np.maximum(feat0.std(0), 1e-3)
    A, c = fit_residual(feat0 / scale, np.log(occ0 + 1e-6), pos[0][0])
    for name, fn in [("plain", lambda o, f: o), ("adapted", lambda o, f: apply_residual(f / scale, np.log(o + 1e-6), A, c))]:
        wrong_sq = tot = boards = 0
        worst = {}
        for fi, (ply, occ, feat) in res.items():
            p = fn(occ, feat).argmax(1)
            w = (p != pos[ply][0]).sum()
            wrong_sq += w
            tot += 64
            boards += w == 0
            if w:
                worst[fi] = [f"{'abcdefgh'[s % 8]}{s // 8 + 1}:{pos[ply][0][s]}->{p[s]}" for s in np.flatnonzero(p != pos[ply][0])][:6]
        print(f"{name}: per-square {(1 - wrong_sq / tot):.4f} ({wrong_sq} wrong of {tot}), boards {boards}/{len(res)}")
        for fi in list(worst)[:8]:
            print("   ", fi, worst[fi])


if __name__ == "__main__":
    main()
