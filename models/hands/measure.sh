#!/usr/bin/env bash
# Measures the hand detector on scholarsmate.avi and on the same clip cropped so that the
# board fills the frame (arms cut by the picture's edge): recall on hand frames and false
# alarms on still frames (../shared/tools/score.py) for the landmark models alone, the
# occluder alone and the fusion, and whether a fingertip lies on the first-touched square.
# Usage (from the repository root): models/hands/measure.sh [ARBITER_BINARY]
# Needs ffmpeg (the crop) and python3 (the scoring); writes into a temporary folder.
set -euo pipefail
bin="${1:-target/release/arbiter}"
shared="../shared"
truth="$shared/footage/real/scholarsmate.truth.json"
clip="$shared/footage/real/scholarsmate.avi"
tmp="$(mktemp -d)"
[ -n "${KEEP:-}" ] && echo "keeping $tmp" || trap 'rm -rf "$tmp"' EXIT
# Crop 374x374 from (135, 3): the board's outer corners move by (-135, -3); the
# homography is the original one after that shift. Lossless (FFV1), every frame kept.
ffmpeg -loglevel error -i "$clip" -vf crop=374:374:135:3 -c:v ffv1 -fps_mode passthrough "$tmp/crop.avi"
python3 - "$tmp/crop.toml" <<'PY'
import sys, tomllib
cal = tomllib.load(open("calibration/scholarsmate.toml", "rb"))
dx, dy = 135.0, 3.0
h = cal["homography"]
# H' = H . T with T(x', y') = (x' + dx, y' + dy); normalised so that h33 = 1.
hp = [[r[0], r[1], r[0] * dx + r[1] * dy + r[2]] for r in h]
s = hp[2][2]
hp = [[v / s for v in r] for r in hp]
corners = [[x - dx, y - dy] for x, y in cal["corners_px"]]
with open(sys.argv[1], "w") as f:
    f.write('source = "scholarsmate.avi cropped 374x374+135+3"\nwidth = 374\nheight = 374\n')
    f.write(f"corners_px = {corners}\nwhite_side = \"{cal['white_side']}\"\nmethod = \"manual\"\n")
    f.write("homography = [\n" + "".join(f"    [{r[0]!r}, {r[1]!r}, {r[2]!r}],\n" for r in hp) + "]\n")
PY
for name in full crop; do
  if [ "$name" = full ]; then v="$clip"; c=calibration/scholarsmate.toml; else v="$tmp/crop.avi"; c="$tmp/crop.toml"; fi
  echo "== $name ($v)"
  for mode in fusion landmarks occluder; do
    case $mode in fusion) a=();; landmarks) a=(--no-occluder);; occluder) a=(--no-landmarks);; esac
    "$bin" hands "$v" --calibration "$c" "${a[@]}" > "$tmp/$name-$mode.jsonl"
    echo -n "$mode: "; python3 "$shared/tools/score.py" hands "$truth" "$tmp/$name-$mode.jsonl"
    echo -n "  "; python3 models/hands/first_touch.py "$truth" "$c" "$tmp/$name-$mode.jsonl"
  done
done
