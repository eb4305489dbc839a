#!/usr/bin/env bash
# Converts MediaPipe 0.10.21's hand models (TFLite) to ONNX opset 13 and checks them on real frames.
# Usage: models/hands/convert.sh   (from anywhere; needs python3.11 and PyPI access)
# Makes models/hands/.venv (ignored), downloads the mediapipe wheel into models/hands/work (ignored),
# writes models/hands/*.onnx and prints the ONNX-vs-TFLite differences.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
py="${PYTHON:-python3.11}"
if [ ! -x "$here/.venv/bin/python" ]; then
  "$py" -m venv "$here/.venv"
  "$here/.venv/bin/pip" install --quiet -r "$here/requirements.txt"
fi
export TF_CPP_MIN_LOG_LEVEL=2 OMP_NUM_THREADS=1 TF_NUM_INTEROP_THREADS=1 TF_NUM_INTRAOP_THREADS=1
exec "$here/.venv/bin/python" "$here/convert.py" "$@"
