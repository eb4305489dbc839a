"""Writes a long event stream for timing `arbiter rule` (not a test case: nothing is checked).

    python3 tests/events/make_long_stream.py /tmp/long.jsonl [moves] [--colors]
    time target/release/arbiter rule /tmp/long.jsonl > /dev/null

Knights out and back (Nf3 Nf6 Ng1 Ng8 ...), each move as touch, lift, place, board, clock; with --colors the
boards are colours only and lifts and places are left out, so every move is inferred from the colours.
"""
import json
import sys

PLACEMENTS = ['rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R', 'rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R',
              'rnbqkb1r/pppppppp/5n2/8/8/8/PPPPPPPP/RNBQKBNR', 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR']
MOVES = [('white', 'g1', 'f3'), ('black', 'g8', 'f6'), ('white', 'f3', 'g1'), ('black', 'f6', 'g8')]


def colors(placement):
    out, empty = '', 0
    for ch in placement:
        if ch.isdigit():
            empty += int(ch)
            continue
        if empty:
            out, empty = out + str(empty), 0
        out += 'w' if ch.isupper() else 'b' if ch.isalpha() else ch
    return out + (str(empty) if empty else '')


def main():
    path = sys.argv[1]
    moves = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 25000
    only_colors = '--colors' in sys.argv
    t = 0.0
    with open(path, 'w') as f:
        for k in range(moves):
            by, a, b = MOVES[k % 4]
            board = {'type': 'board', 'colors': colors(PLACEMENTS[k % 4])} if only_colors else \
                {'type': 'board', 'placement': PLACEMENTS[k % 4]}
            events = [{'type': 'touch', 'by': by, 'square': a}]
            if not only_colors:
                events += [{'type': 'lift', 'by': by, 'square': a}, {'type': 'place', 'by': by, 'square': b}]
            events += [board, {'type': 'clock', 'by': by}]
            for e in events:
                t += 0.1
                f.write(json.dumps({'t': round(t, 1), 'frame': int(t * 30), **e}) + '\n')


main()
