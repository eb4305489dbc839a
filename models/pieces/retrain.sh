#!/usr/bin/env bash
# Regenerates the synthetic data and retrains + exports models/pieces/pieces.onnx.
# One command, CPU only:  models/pieces/retrain.sh  [MINUTES]  (default 22, then
# fine-tunes of 14 and 12 minutes, as for the committed model; see README.md)
# Makes its own venv in models/pieces/.venv (git-ignored); data goes to models/pieces/work/.
set -euo pipefail
cd "$(dirname "$0")"
MINUTES="${1:-22}"
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
    .venv/bin/pip install -q -r requirements.txt
fi
mkdir -p work
# held-out set (seed 1000) first, then the training chunks; training starts on the
# first chunk and picks up the others as the generator finishes them
.venv/bin/python gen.py --out work --count 600 --seed 1000
.venv/bin/python gen.py --out work --count 3000 --seed 1
(for s in 2 3 4; do .venv/bin/python gen.py --out work --count 3000 --seed "$s"; done) &
GEN=$!
.venv/bin/python train.py --data work --minutes "$MINUTES" --threads 1 --out work/pieces_v1.onnx --checkpoint work/pieces_v1.pt
wait "$GEN"
.venv/bin/python train.py --data work --minutes 14 --lr 1e-3 --init work/pieces_v1.pt --threads 1 \
    --out work/pieces_v2.onnx --checkpoint work/pieces_v2.pt
# phase 3: fine-tune on seeds 3-6 (two more chunks)
for s in 5 6; do .venv/bin/python gen.py --out work --count 3000 --seed "$s"; done
mkdir -p work/ft3
for s in 3 4 5 6 1000; do ln -sf ../data_$s.npz work/ft3/data_$s.npz; done
.venv/bin/python train.py --data work/ft3 --minutes 12 --lr 7e-4 --init work/pieces_v2.pt --threads 1 \
    --out work/pieces.onnx --checkpoint work/pieces.pt
.venv/bin/python check_export.py work/pieces.onnx work/pieces.pt
cp work/pieces.onnx pieces.onnx
echo "wrote models/pieces/pieces.onnx"
