"""Train the piece model on the synthetic data from gen.py and export it to ONNX.

The network is small and fully convolutional: five stride-2 stages take the 320x320
rectified view (one 32 px cell per square, one cell of margin) down to a 10x10 grid;
a 3x3 context layer lets each cell see its neighbours (tall pieces lean into the next
square); the inner 8x8 cells are the 64 squares. Per square it gives a feature vector
(`features`, used by the per-board adaptation in Rust) and, from that vector alone,
the occupancy/colour and piece-type distributions.

Input `image` [N,4,320,320] float32: B,G,R in [0,1] with unknown pixels set to 0, and
the known mask (1 known, 0 outside the source picture).
Outputs: `occupancy` [N,64,3] (empty, white, black), `types` [N,64,6] (P,N,B,R,Q,K),
`features` [N,64,F]; square order a1=0, b1=1, ..., h8=63.

Usage: python train.py --data work --minutes 20 --out pieces.onnx
"""

import argparse
import glob
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

FEATURES = 32


def block(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class PieceNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            block(4, 16, 2),  # 160
            block(16, 24, 2),  # 80
            block(24, 24, 1),
            block(24, 48, 2),  # 40
            block(48, 48, 1),
            block(48, 64, 2),  # 20
            block(64, 64, 1),
            block(64, 96, 2),  # 10: one cell per square (+ margin ring)
            block(96, 96, 1),  # context from neighbouring squares
        )
        self.feat = nn.Sequential(nn.Conv2d(96, FEATURES, 1), nn.ReLU(inplace=True))
        self.occ = nn.Conv2d(FEATURES, 3, 1)
        self.typ = nn.Conv2d(FEATURES, 6, 1)

    def squares(self, x):
        # inner 8x8 cells, rank 1 first (image rows run from rank 8 down), -> [N,64,C]
        x = x[:, :, 1:9, 1:9].flip(2)
        n, c = x.shape[0], x.shape[1]
        return x.reshape(n, c, 64).permute(0, 2, 1)

    def forward(self, image):
        x = image - 0.5
        f = self.feat(self.body(x))
        occ_logits = self.squares(self.occ(f))
        typ_logits = self.squares(self.typ(f))
        return occ_logits, typ_logits, self.squares(f)


class Exported(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, image):
        o, t, f = self.net(image)
        return F.softmax(o, -1), F.softmax(t, -1), f


def load(paths):
    Xs, occ, typ, ign = [], [], [], []
    for p in paths:
        d = np.load(p)
        Xs.append(d["X"])
        occ.append(d["occ"])
        typ.append(d["typ"])
        ign.append(d["ign"])
    return np.concatenate(Xs), np.concatenate(occ), np.concatenate(typ), np.concatenate(ign)


def dihedral(X, labels, k, flip):
    """Rotate/flip image batch [N,H,W,C] and square labels [N,64] consistently."""
    g = [lab.reshape(-1, 8, 8)[:, ::-1] for lab in labels]  # image-grid orientation
    X = np.rot90(X, k, axes=(1, 2))
    g = [np.rot90(a, k, axes=(1, 2)) for a in g]
    if flip:
        X = X[:, :, ::-1]
        g = [a[:, :, ::-1] for a in g]
    return np.ascontiguousarray(X), [np.ascontiguousarray(a[:, ::-1].reshape(-1, 64)) for a in g]


def to_tensor(X):
    x = torch.from_numpy(X).permute(0, 3, 1, 2).float() / 255.0
    known = (x[:, 3:4] > 0.5).float()
    return torch.cat([x[:, :3] * known, known], 1)


def losses(net, X, occ, typ, ign):
    o, t, _ = net(to_tensor(X))
    occ_t = torch.from_numpy(occ.astype(np.int64))
    typ_t = torch.from_numpy(typ.astype(np.int64))
    keep = torch.from_numpy(~ign)
    lo = F.cross_entropy(o[keep], occ_t[keep])
    has = keep & (typ_t >= 0)
    lt = F.cross_entropy(t[has], typ_t[has]) if has.any() else torch.zeros(())
    return lo, lt, o, t


@torch.no_grad()
def evaluate(net, X, occ, typ, ign, bs=32):
    net.eval()
    right_o = n_o = right_t = n_t = boards_ok = 0
    for i in range(0, len(X), bs):
        _, _, o, t = losses(net, X[i : i + bs], occ[i : i + bs], typ[i : i + bs], ign[i : i + bs])
        po, pt = o.argmax(-1).numpy(), t.argmax(-1).numpy()
        keep = ~ign[i : i + bs]
        ok = (po == occ[i : i + bs]) | ~keep
        right_o += ((po == occ[i : i + bs]) & keep).sum()
        n_o += keep.sum()
        boards_ok += ok.all(1).sum()
        has = keep & (typ[i : i + bs] >= 0)
        right_t += ((pt == typ[i : i + bs]) & has).sum()
        n_t += has.sum()
    net.train()
    return right_o / n_o, right_t / max(n_t, 1), boards_ok / len(X)


def export(net, path):
    net.eval()
    model = Exported(net)
    dummy = torch.zeros(1, 4, 320, 320)
    kw = dict(
        input_names=["image"],
        output_names=["occupancy", "types", "features"],
        dynamic_axes={"image": {0: "n"}, "occupancy": {0: "n"}, "types": {0: "n"}, "features": {0: "n"}},
        opset_version=17,
    )
    try:
        torch.onnx.export(model, dummy, path, dynamo=False, **kw)
    except TypeError:
        torch.onnx.export(model, dummy, path, **kw)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="work")
    ap.add_argument("--val-seed", type=int, default=1000)
    ap.add_argument("--minutes", type=float, default=20)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="pieces.onnx")
    ap.add_argument("--checkpoint", default="work/pieces.pt")
    ap.add_argument("--init", help="start from this checkpoint (fine-tuning on more data)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)

    val_path = os.path.join(args.data, f"data_{args.val_seed}.npz")
    Xv, ov, tv, iv = load([val_path])
    net = PieceNet()
    if args.init:
        net.load_state_dict(torch.load(args.init))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    budget = args.minutes * 60
    t0 = time.time()
    step = 0
    seen = set()
    X = None
    while time.time() - t0 < budget:
        # pick up chunks the generator has finished since the last pass
        chunks = sorted(p for p in glob.glob(os.path.join(args.data, "data_*.npz")) if p != val_path)
        if set(chunks) != seen:
            X, occ, typ, ign = load(chunks)
            seen = set(chunks)
            print(f"training set: {len(X)} boards from {len(chunks)} chunks", flush=True)
        order = rng.permutation(len(X))
        for i in range(0, len(order) - args.batch + 1, args.batch):
            frac = (time.time() - t0) / budget
            if frac >= 1:
                break
            lr = args.lr * 0.5 * (1 + np.cos(np.pi * frac)) if frac > 0.05 else args.lr * frac / 0.05
            for g in opt.param_groups:
                g["lr"] = lr
            idx = np.sort(order[i : i + args.batch])
            xb, (ob, tb, ib) = dihedral(X[idx], [occ[idx], typ[idx], ign[idx]], int(rng.integers(4)), bool(rng.integers(2)))
            lo, lt, _, _ = losses(net, xb, ob, tb, ib)
            loss = lo + 0.5 * lt
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 100 == 0:
                print(f"step {step} t={time.time() - t0:.0f}s lr={lr:.5f} occ={lo.item():.4f} type={lt.item():.4f}", flush=True)
            if step % 500 == 0:
                torch.save(net.state_dict(), args.checkpoint)
                export(net, args.out)
                net.train()
        if set(glob.glob(os.path.join(args.data, "data_*.npz"))) - {val_path} == seen:
            acc_o, acc_t, boards = evaluate(net, Xv, ov, tv, iv)
            print(f"held-out synthetic: occupancy {acc_o:.4f} type {acc_t:.4f} boards {boards:.3f}", flush=True)
    torch.save(net.state_dict(), args.checkpoint)
    acc_o, acc_t, boards = evaluate(net, Xv, ov, tv, iv)
    print(f"final held-out synthetic ({len(Xv)} boards, seed {args.val_seed}): per-square occupancy/colour {acc_o:.4f}, type {acc_t:.4f}, full boards {boards:.3f}", flush=True)
    export(net, args.out)
    print(f"exported {args.out}", flush=True)


if __name__ == "__main__":
    main()
