"""Converts MediaPipe 0.10.21's palm-detection and hand-landmark models (TFLite) to ONNX
opset 13 and checks each ONNX model against TFLite on real frames.

Run through convert.sh (which makes the venv). Steps:
  1. `pip download --no-deps mediapipe==0.10.21` (the wheel for this Python) into work/;
     the four .tflite files are read straight out of the wheel (installing mediapipe
     itself would pull jax and a protobuf that clashes with tf2onnx; it is not needed).
  2. tf2onnx (from TFLite, opset 13) writes work/*.raw.onnx; the graph inputs/outputs
     are then renamed to plain names (image / boxes, scores; image / landmarks,
     presence, handedness, world_landmarks) and written to models/hands/*.onnx.
  3. Each model runs in TFLite and in ONNX Runtime on inputs cut from real frames of
     ../shared/footage/real/scholarsmate.avi (letterboxed whole frames for the palm
     models, square crops around hands for the landmark models); the largest absolute
     difference per output is printed and must stay under 1e-2.
"""
import glob
import os
import subprocess
import sys
import zipfile

import cv2
import numpy as np
import onnx
import onnxruntime as ort
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "work")
REPO = os.path.dirname(os.path.dirname(HERE))
CLIP = os.path.join(REPO, "..", "shared", "footage", "real", "scholarsmate.avi")
VERSION = "0.10.21"
OPSET = 13

MODELS = {
    "palm_detection_full": ("mediapipe/modules/palm_detection/palm_detection_full.tflite", ["image"], ["boxes", "scores"]),
    "palm_detection_lite": ("mediapipe/modules/palm_detection/palm_detection_lite.tflite", ["image"], ["boxes", "scores"]),
    "hand_landmark_full": (
        "mediapipe/modules/hand_landmark/hand_landmark_full.tflite",
        ["image"],
        ["landmarks", "presence", "handedness", "world_landmarks"],
    ),
    "hand_landmark_lite": (
        "mediapipe/modules/hand_landmark/hand_landmark_lite.tflite",
        ["image"],
        ["landmarks", "presence", "handedness", "world_landmarks"],
    ),
}
# Frames of scholarsmate.avi with a hand over the board (truth file) plus one still frame.
CHECK_FRAMES = [35, 50, 100, 170, 230, 120]
# Square crops (x, y, side) in source pixels around the hands of CHECK_FRAMES[:4], for the landmark check.
HAND_CROPS = [(360, 40, 200), (100, 90, 200), (90, 190, 200), (320, 150, 200)]


def fetch_wheel():
    wheels = glob.glob(os.path.join(WORK, f"mediapipe-{VERSION}-*.whl"))
    if not wheels:
        subprocess.check_call(
            [sys.executable, "-m", "pip", "download", "--no-deps", f"mediapipe=={VERSION}", "-d", WORK]
        )
        wheels = glob.glob(os.path.join(WORK, f"mediapipe-{VERSION}-*.whl"))
    return wheels[0]


def rename_io(model, want_inputs, want_outputs):
    """Renames the graph's inputs and outputs (in tflite order) to plain names."""
    graph = model.graph
    renames = {}
    for value, new in zip(graph.input, want_inputs):
        renames[value.name] = new
    # tflite output order is not guaranteed to be name-sorted: order outputs by their
    # tflite names (Identity, Identity_1, ...) which follow the model's signature.
    outs = sorted(graph.output, key=lambda v: (len(v.name), v.name))
    for value, new in zip(outs, want_outputs):
        renames[value.name] = new
    for node in graph.node:
        node.input[:] = [renames.get(n, n) for n in node.input]
        node.output[:] = [renames.get(n, n) for n in node.output]
    for value in list(graph.input) + list(graph.output):
        value.name = renames.get(value.name, value.name)
    return renames


def letterbox(frame_bgr, size):
    """Whole frame into size x size, aspect kept, zero padding, RGB, [0,1] (MediaPipe's palm input)."""
    h, w = frame_bgr.shape[:2]
    s = size / max(h, w)
    nw, nh = round(w * s), round(h * s)
    img = cv2.resize(frame_bgr, (nw, nh), interpolation=cv2.INTER_AREA)
    out = np.zeros((size, size, 3), np.float32)
    y0, x0 = (size - nh) // 2, (size - nw) // 2
    out[y0 : y0 + nh, x0 : x0 + nw] = cv2.cvtColor(img, cv2.COLOR_BGR2RGB).astype(np.float32) / 255.0
    return out[None]


def crop(frame_bgr, x, y, side, size):
    img = frame_bgr[y : y + side, x : x + side]
    img = cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
    return (cv2.cvtColor(img, cv2.COLOR_BGR2RGB).astype(np.float32) / 255.0)[None]


def read_frames(indices):
    if not os.path.exists(CLIP):
        sys.exit(f"missing {CLIP}: the check needs the real clip (../shared beside the repository)")
    cap = cv2.VideoCapture(CLIP)
    frames, i = {}, 0
    while len(frames) < len(indices):
        ok, f = cap.read()
        if not ok:
            break
        if i in indices:
            frames[i] = f
        i += 1
    return frames


def run_tflite(path, x):
    it = tf.lite.Interpreter(model_path=path, num_threads=1)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    outs = sorted(it.get_output_details(), key=lambda d: (len(d["name"]), d["name"]))
    return [it.get_tensor(d["index"]) for d in outs], [d["name"] for d in outs]


def main():
    os.makedirs(WORK, exist_ok=True)
    wheel = fetch_wheel()
    frames = read_frames(set(CHECK_FRAMES))
    worst = 0.0
    with zipfile.ZipFile(wheel) as z:
        for name, (member, ins, outs) in MODELS.items():
            tfl = os.path.join(WORK, name + ".tflite")
            with open(tfl, "wb") as f:
                f.write(z.read(member))
            raw = os.path.join(WORK, name + ".raw.onnx")
            subprocess.check_call(
                [sys.executable, "-m", "tf2onnx.convert", "--tflite", tfl, "--output", raw, "--opset", str(OPSET)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            model = onnx.load(raw)
            renames = rename_io(model, ins, outs)
            model.producer_name = f"tf2onnx from mediapipe=={VERSION} {member}"
            onnx.checker.check_model(model)
            dst = os.path.join(HERE, name + ".onnx")
            onnx.save(model, dst)
            sess = ort.InferenceSession(dst, providers=["CPUExecutionProvider"])
            shape = sess.get_inputs()[0].shape
            size = shape[1]
            print(f"{name}: {member} -> {os.path.relpath(dst, REPO)} ({os.path.getsize(dst)} bytes)")
            print(f"  input {sess.get_inputs()[0].name} {shape}; outputs "
                  + ", ".join(f"{o.name} {o.shape}" for o in sess.get_outputs()) + f"; renamed {renames}")
            if name.startswith("palm"):
                inputs = [letterbox(frames[i], size) for i in CHECK_FRAMES]
            else:
                inputs = [crop(frames[i], *c, size) for i, c in zip(CHECK_FRAMES, HAND_CROPS)]
            diffs = np.zeros(len(outs))
            for x in inputs:
                ref, ref_names = run_tflite(tfl, x)
                got = sess.run(outs, {ins[0]: x})
                for k, (r, g) in enumerate(zip(ref, got)):
                    diffs[k] = max(diffs[k], float(np.max(np.abs(r.reshape(g.shape) - g))))
            print("  max |onnx - tflite| on %d real inputs: " % len(inputs)
                  + ", ".join(f"{o} {d:.2e}" for o, d in zip(outs, diffs)))
            worst = max(worst, float(diffs.max()))
    print(f"worst difference {worst:.2e}")
    if worst > 1e-2:
        sys.exit("ONNX and TFLite disagree: do not commit these models")


if __name__ == "__main__":
    main()
