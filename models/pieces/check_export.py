"""Checks that the exported ONNX model gives the same outputs as the PyTorch
checkpoint (ONNX Runtime vs torch on held-out synthetic boards).

Usage: python check_export.py work/pieces.onnx work/pieces.pt [work/data_1000.npz]
"""

import sys

import numpy as np
import onnxruntime as ort
import torch

import train


def main():
    onnx_path, ckpt = sys.argv[1], sys.argv[2]
    data = sys.argv[3] if len(sys.argv) > 3 else "work/data_1000.npz"
    torch.set_num_threads(1)
    net = train.PieceNet()
    net.load_state_dict(torch.load(ckpt))
    model = train.Exported(net).eval()
    X = np.load(data)["X"][:8]
    x = train.to_tensor(X)
    with torch.no_grad():
        want = [t.numpy() for t in model(x)]
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(onnx_path, opts, providers=["CPUExecutionProvider"])
    got = sess.run(["occupancy", "types", "features"], {"image": x.numpy()})
    for name, a, b in zip(["occupancy", "types", "features"], want, got):
        err = float(np.abs(a - b).max())
        print(f"{name}: shape {b.shape}, max |onnxruntime - torch| = {err:.2e}")
        assert err < 1e-3, f"{name} differs"
    print("export matches")


if __name__ == "__main__":
    main()
