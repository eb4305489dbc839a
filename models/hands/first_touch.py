"""Whether a fingertip lies on the first-touched square at each ply's first-touch frame.

  python3 models/hands/first_touch.py TRUTH.json CALIBRATION.toml HANDS.jsonl

Reads `arbiter hands` output (tips in source pixels), maps every tip to the board with
the calibration's homography, and for each ply of the truth file checks the frame
`first_touch_frame` (and, less strictly, any frame of `first_touch_range`): is one tip
on the first-touched square (the moved piece's, unless the truth names another)?
Standard library only (Python 3.11+)."""
import json
import sys
import tomllib


def square_of(h, x, y):
    w = h[2][0] * x + h[2][1] * y + h[2][2]
    if abs(w) < 1e-12:
        return None
    bx = (h[0][0] * x + h[0][1] * y + h[0][2]) / w
    by = (h[1][0] * x + h[1][1] * y + h[1][2]) / w
    if not (0 <= bx < 8 and 0 <= by < 8):
        return None
    return "abcdefgh"[int(bx)] + str(int(by) + 1)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    truth = json.load(open(sys.argv[1]))
    h = tomllib.load(open(sys.argv[2], "rb"))["homography"]
    frames = {}
    for line in open(sys.argv[3]):
        if line.strip().startswith("{"):
            d = json.loads(line)
            frames[d["frame"]] = d.get("hands") or []
    at_frame = in_range = 0
    notes = []
    for m in truth["moves"]:
        want = m.get("first_touch_square", m["uci"][:2])

        def squares(f):
            return {square_of(h, t[0], t[1]) for hand in frames.get(f, []) for t in hand["tips"]}

        hit = want in squares(m["first_touch_frame"])
        lo, hi = m["first_touch_range"]
        hit_range = any(want in squares(f) for f in range(lo, hi + 1))
        at_frame += hit
        in_range += hit_range
        got = sorted(s for s in squares(m["first_touch_frame"]) if s)
        notes.append(f"{m['san']}@{m['first_touch_frame']}:{want}{'' if hit else '!'}({','.join(got) or '-'})")
    n = len(truth["moves"])
    print(f"fingertip on the first-touched square: {at_frame}/{n} plies at the first-touch frame, "
          f"{in_range}/{n} within the first-touch range")
    print("  " + " ".join(notes))


if __name__ == "__main__":
    main()
