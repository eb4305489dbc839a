"""Writes the event streams in this folder and the rulings expected beside them.

Run `python3 tests/events/make_cases.py` after changing a case. Placements were computed with shakmaty
(legal moves) and by moving one piece by hand (illegal moves); the expected rulings are what the Laws
(../shared/laws.md) prescribe, written by hand, not copied from the engine's output.
"""
import json, os
OUT=os.path.dirname(os.path.abspath(__file__))
cases={}
def case(name, events, expected, args=''):
    cases[name]=(events, expected, args)

class S:
    """Builds an event stream with increasing t and frame."""
    def __init__(s, fen=None):
        s.ev=[]; s.t=0.0
        if fen: s.ev.append({"t":0.0,"type":"start","fen":fen})
    def add(s, **kw):
        s.t=round(s.t+0.5,2); e={"t":s.t,"frame":int(s.t*30)}; 
        e.update(kw); s.ev.append(e); return s
    def touch(s, by, sq): return s.add(type="touch", by=by, square=sq)
    def possible(s, by, sq): return s.add(type="possible-touch", by=by, square=sq)
    def lift(s, by, sq): return s.add(type="lift", by=by, square=sq)
    def place(s, by, sq): return s.add(type="place", by=by, square=sq)
    def board(s, p): return s.add(type="board", placement=p)
    def colors(s, c): return s.add(type="board", colors=c)
    def clock(s, by): return s.add(type="clock", by=by)
    def two_hands(s, by): return s.add(type="two-hands", by=by)
    def adjust(s, by): return s.add(type="adjust", by=by)
    def claim(s, by, about): return s.add(type="claim", by=by, about=about)
    def move(s, by, frm, to, p, clock=True):
        s.lift(by, frm).place(by, to).board(p)
        return s.clock(by) if clock else s
    def capture(s, by, frm, to, p, clock=True):
        s.lift(by, frm).lift(by, to).place(by, to).board(p)
        return s.clock(by) if clock else s

def mv(san, player, **kw):
    d={"kind":"move","san":san,"player":player}; d.update(kw); return d

W,B='white','black'
START='rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR'
E4='rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR'
E4D5='rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR'
E4D5_FEN='rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2'

# ---------------- seeds ----------------
FD='2r3k1/5ppp/p7/5q2/2BP4/b5P1/P1R2P1P/5QK1 w - - 1 30'
FD_B='2r3k1/5ppp/p7/5q2/2BP4/b5P1/P1R2P1P/5QK1'
FD_BD3='2r3k1/5ppp/p7/5q2/3P4/b2B2P1/P1R2P1P/5QK1'
FD_QE1='2r3k1/5ppp/p7/5q2/2BP4/b5P1/P1R2P1P/4Q1K1'
BISHOP=["Bb3","Bb5","Bd3","Bd5","Be2","Be6","Bxa6","Bxf7+"]
s=S(FD).touch(W,'c4').move(W,'c4','d3',FD_BD3)
case('seed_fischer_donner', s.ev, [mv("Bd3",W,uci="c4d3",article="6.2.1",completed_by="clock",acts="arbiter")])
s=S(FD).touch(W,'c4').move(W,'f1','e1',FD_QE1,clock=False).move(W,'e1','f1',FD_B,clock=False).move(W,'c4','d3',FD_BD3)
case('seed_fischer_donner_variant', s.ev, [
  {"kind":"touch-move","article":"4.3.1","player":W,"acts":"arbiter","obligation":"move-first-touched-own","touched":["c4","f1"],"played":"Qe1","played_uci":"f1e1","required":BISHOP},
  mv("Bd3",W)])

UF='r1b2rk1/2q1bppp/p1pppn2/6B1/4PP2/2NB2Q1/PPP3PP/2KR3R b - - 1 12'
UF_B='r1b2rk1/2q1bppp/p1pppn2/6B1/4PP2/2NB2Q1/PPP3PP/2KR3R'
UF_ND5='r1b2rk1/2q1bppp/p1ppp3/3n2B1/4PP2/2NB2Q1/PPP3PP/2KR3R'
UF_H5='r1b2rk1/2q1bpp1/p1pppn2/6Bp/4PP2/2NB2Q1/PPP3PP/2KR3R'
s=S(UF).touch(B,'h7').move(B,'f6','d5',UF_ND5,clock=False).move(B,'d5','f6',UF_B,clock=False).move(B,'h7','h5',UF_H5)
case('seed_unzicker_fischer', s.ev, [
  {"kind":"touch-move","article":"4.3.1","player":B,"obligation":"move-first-touched-own","touched":["h7","f6"],"played":"Nd5","required":["h5","h6"]},
  mv("h5",B,uci="h7h5")])

KC='4Q3/1r5K/3k4/8/8/8/8/8 w - - 0 54'
KC_B='4Q3/1r5K/3k4/8/8/8/8/8'
KC_QE6='8/1r5K/3kQ3/8/8/8/8/8'
KC_QE7='8/1r2Q2K/3k4/8/8/8/8/8'
KC_RXE7='8/4r2K/3k4/8/8/8/8/8'
s=S(KC).touch(W,'e8').move(W,'e8','e6',KC_QE6).move(W,'e6','e8',KC_B,clock=False).move(W,'e8','e7',KC_QE7).capture(B,'b7','e7',KC_RXE7)
case('seed_karpov_chernin', s.ev, [
  {"kind":"illegal-move","article":"7.5.1","player":W,"acts":"arbiter","played":"e8e6","reason":"king-in-check","reinstate":KC,"count":1,
   "replacement_must":{"obligation":"move-first-touched-own","article":"4.3.1","required":["Qd7+","Qe7+","Qf7"]}},
  {"kind":"sanction","article":"A.3","player":W,"sanction":{"type":"time","to":B,"seconds":60}},
  mv("Qe7+",W), mv("Rxe7+",B)], args='--time-control rapid')

TA='rnbqkb1r/ppp2ppp/3p4/8/4n3/3P1N2/PPP2PPP/RNBQKB1R b KQkq - 0 5'
TA_NF6='rnbqkb1r/ppp2ppp/3p1n2/8/8/3P1N2/PPP2PPP/RNBQKB1R'
s=S(TA).touch(B,'f8').move(B,'e4','f6',TA_NF6,clock=False)
case('seed_tarrasch_alapin', s.ev, [
  {"kind":"touch-move","article":"4.3.1","player":B,"touched":["f8","e4"],"played":"Nf6","obligation":"move-first-touched-own","required":["Be7"]},
  # The stream ends with the knight on f6: the score records what the board shows, with a note.
  mv("Nf6",B,completed_by="end-of-stream",note="no clock press seen before the end of the stream; ruled against under touch-move; the stream ended before it was replaced")])

LE_EXD5='rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR'
LE_QXD5='rnb1kbnr/ppp1pppp/8/3q4/8/8/PPPP1PPP/RNBQKBNR'
LE_BC3='rnb1kbnr/ppp1pppp/8/3q4/8/2B5/PPPP1PPP/RN1QKBNR'
LE_NC3='rnb1kbnr/ppp1pppp/8/3q4/8/2N5/PPPP1PPP/R1BQKBNR'
LE_FEN='rnb1kbnr/ppp1pppp/8/3q4/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3'
def le_prefix():
    return S().move(W,'e2','e4',E4).move(B,'d7','d5',E4D5).capture(W,'e4','d5',LE_EXD5).capture(B,'d8','d5',LE_QXD5)
s=le_prefix().move(W,'c1','c3',LE_BC3).move(W,'c3','c1',LE_QXD5,clock=False).move(W,'b1','c3',LE_NC3)
LE_RULINGS=[mv("e4",W),mv("d5",B),mv("exd5",W),mv("Qxd5",B),
  {"kind":"illegal-move","article":"7.5.1","player":W,"played":"c1c3","reason":"impossible-move","reinstate":LE_FEN,"count":1,
   "replacement_must":{"obligation":"any-move","article":"4.5","required":[]}},
  {"kind":"sanction","article":"7.5.5","player":W,"sanction":{"type":"time","to":B,"seconds":120}},
  mv("Nc3",W)]
case('seed_lindemann_echtermeyer', s.ev, LE_RULINGS)

SM='7k/Q7/7K/8/8/8/8/8 w - - 0 1'
SM_B='7k/Q7/7K/8/8/8/8/8'
SM_QG7='7k/6Q1/7K/8/8/8/8/8'
SM_KH5='7k/Q7/8/7K/8/8/8/8'
s=S(SM).touch(W,'h6').move(W,'a7','g7',SM_QG7,clock=False).move(W,'g7','a7',SM_B,clock=False).move(W,'h6','h5',SM_KH5)
case('seminar_mate_irregular_2023', s.ev, [
  {"kind":"touch-move","article":"4.3.1","player":W,"played":"Qg7#","touched":["h6","a7"],"required":["Kg5","Kg6","Kh5"]},
  {"kind":"game-end","article":"5.1.1","result":"1-0","reason":"checkmate","regular":False,"stands":False},
  mv("Kh5",W)])
s=S(SM).touch(W,'h6').move(W,'a7','g7',SM_QG7,clock=False)
case('seminar_mate_irregular_2009', s.ev, [
  {"kind":"touch-move","article":"4.3a","player":W,"played":"Qg7#","required":["Kg5","Kg6","Kh5"]},
  mv("Qg7#",W,article="6.7a",completed_by="game-end"),
  {"kind":"game-end","article":"5.1a","result":"1-0","reason":"checkmate","regular":False,"stands":True}], args='--laws 2009')
s=S(SM).touch(W,'a7').move(W,'h6','h5',SM_KH5,clock=False)
case('seminar_touch_queen_play_king', s.ev, [
  {"kind":"touch-move","article":"4.3.1","player":W,"acts":"arbiter","obligation":"move-first-touched-own","played":"Kh5","touched":["a7","h6"]}])
START_FEN='rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'
s=S().clock(W).move(W,'e2','e4',E4)
case('seminar_clock_without_move_2023', s.ev, [
  {"kind":"illegal-move","article":"7.5.3","player":W,"acts":"arbiter","reason":"clock-without-move","played":"clock pressed without a move","count":1,"reinstate":START_FEN,
   "replacement_must":{"obligation":"any-move","required":[]}},
  {"kind":"sanction","article":"7.5.5","player":W,"sanction":{"type":"time","to":B,"seconds":120}},
  mv("e4",W)])
s=S().clock(W).move(W,'e2','e4',E4)
case('seminar_clock_without_move_2009', s.ev, [
  {"kind":"irregular","article":"13.4","player":W,"acts":"arbiter","what":"clock-without-move"},
  mv("e4",W)], args='--laws 2009')


# ---------------- Article 4 ----------------
E2='rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR'
D4='rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR'
NF3='rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R'
NH3='rnbqkbnr/pppppppp/8/8/8/7N/PPPPPPPP/RNBQKB1R'
s=S().adjust(W).touch(W,'e2').touch(W,'g1').move(W,'d2','d4',D4)
case('art_4_2_1_adjust_announced', s.ev, [mv("d4",W)])
s=S().touch(B,'e7').move(W,'e2','e4',E4)
case('art_4_2_1_touch_not_on_move', s.ev, [
  {"kind":"irregular","article":"4.2.1","player":B,"acts":"arbiter","what":"touch-when-not-on-move","squares":["e7"]}, mv("e4",W)])
s=S().adjust(B).move(W,'e2','e4',E4)
case('art_4_2_1_adjust_not_on_move', s.ev, [
  {"kind":"irregular","article":"4.2.1","player":B,"what":"adjust-when-not-on-move"}, mv("e4",W)])
s=S().touch(W,'g1').move(W,'e2','e4',E4,clock=False)
case('art_4_3_1_first_touched_own_piece', s.ev, [
  {"kind":"touch-move","article":"4.3.1","player":W,"obligation":"move-first-touched-own","touched":["g1","e2"],"played":"e4","played_uci":"e2e4","required":["Nf3","Nh3"]}])
E4D5_NF3='rnbqkbnr/ppp1pppp/8/3p4/4P3/5N2/PPPP1PPP/RNBQKB1R'
E4D5_EXD5='rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR'
s=S(E4D5_FEN).touch(W,'d5').move(W,'g1','f3',E4D5_NF3,clock=False)
case('art_4_3_2_first_touched_opponent_piece', s.ev, [
  {"kind":"touch-move","article":"4.3.2","player":W,"obligation":"capture-first-touched-opponent","touched":["d5","g1"],"played":"Nf3","required":["exd5"]}])
s=S(E4D5_FEN).touch(W,'e4').touch(W,'d5').move(W,'g1','f3',E4D5_NF3,clock=False)
case('art_4_3_3_capture_with_touched_own', s.ev, [
  {"kind":"touch-move","article":"4.3.3","player":W,"obligation":"capture-with-touched-own","touched":["e4","d5","g1"],"required":["exd5"]}])
s=S(E4D5_FEN).touch(W,'g1').touch(W,'d5').capture(W,'e4','d5',E4D5_EXD5,clock=False)
case('art_4_3_3_capture_impossible_first_piece_moves', s.ev, [
  {"kind":"touch-move","article":"4.3.3","player":W,"obligation":"move-first-touched-own","touched":["g1","d5","e4"],"played":"exd5","required":["Ne2","Nf3","Nh3"]}])
# Same instant: the order is unclear, so the player's own piece counts as touched first (4.3.3).
s=S(E4D5_FEN)
s.t=1.0; s.ev.append({"t":1.0,"frame":30,"type":"touch","by":W,"square":"d5"}); s.ev.append({"t":1.0,"frame":30,"type":"touch","by":W,"square":"g1"})
s.capture(W,'e4','d5',E4D5_EXD5,clock=False)
case('art_4_3_3_order_unclear_own_piece_first', s.ev, [
  {"kind":"touch-move","article":"4.3.3","player":W,"obligation":"move-first-touched-own","touched":["g1","d5","e4"],"required":["Ne2","Nf3","Nh3"]}])
s=S(E4D5_FEN).touch(W,'d5').touch(W,'g1').capture(W,'e4','d5',E4D5_EXD5)
case('art_4_3_3_opponent_piece_clearly_first', s.ev, [mv("exd5",W)])
s=S().possible(W,'g1').move(W,'e2','e4',E4)
case('art_4_2_2_possible_touch_never_penalised', s.ev, [
  mv("e4",W,note="possible touch of g1 (the camera could not tell it from a brush): had it been deliberate, one of Nf3, Nh3 was required; not ruled, a doubt is never a penalty")])
s=S().touch(W,'c1').move(W,'e2','e4',E4)
case('art_4_5_touched_piece_cannot_move_no_penalty', s.ev, [mv("e4",W)])

CA='r3k3/8/8/8/8/8/8/R3K2R w KQq - 0 1'
CA_KF1='r3k3/8/8/8/8/8/8/R4K1R'
CA_OO='r3k3/8/8/8/8/8/8/R4RK1'
CA_KG1='r3k3/8/8/8/8/8/8/R5KR'
CA_A3='r3k3/8/8/8/8/R7/8/4K2R'
s=S(CA).touch(W,'e1').touch(W,'h1').move(W,'e1','f1',CA_KF1,clock=False)
case('art_4_4_1_king_and_rook_castle', s.ev, [
  {"kind":"touch-move","article":"4.4.1","player":W,"obligation":"castle","touched":["e1","h1"],"played":"Kf1","required":["O-O"]}])
s=S(CA).touch(W,'e1').touch(W,'h1').move(W,'e1','g1',CA_KG1,clock=False).move(W,'h1','f1',CA_OO)
case('art_4_4_1_castling_in_order', s.ev, [mv("O-O",W,uci="e1g1")])
s=S(CA).touch(W,'h1').touch(W,'e1').lift(W,'h1').place(W,'f1').lift(W,'e1').place(W,'g1').board(CA_OO)
case('art_4_4_2_rook_first_no_castling', s.ev, [
  {"kind":"touch-move","article":"4.4.2","player":W,"obligation":"move-rook-not-castle","touched":["h1","e1"],"played":"O-O","required":["Rf1","Rg1","Rh2","Rh3","Rh4","Rh5","Rh6","Rh7","Rh8+"]}])
CI='4kr2/8/8/8/8/8/8/4K2R w K - 0 1'
CI_H3='4kr2/8/8/8/8/7R/8/4K3'
s=S(CI).touch(W,'e1').touch(W,'h1').move(W,'h1','h3',CI_H3,clock=False)
case('art_4_4_3_king_then_rook_castling_illegal', s.ev, [
  {"kind":"touch-move","article":"4.4.3","player":W,"obligation":"move-king-instead","touched":["e1","h1"],"played":"Rh3","required":["Kd1","Kd2","Ke2"]}])
PR='7k/P7/8/8/8/8/8/1R2K3 w - - 0 1'
PR_N='N6k/8/8/8/8/8/8/1R2K3'
PR_Q='Q6k/8/8/8/8/8/8/1R2K3'
PR_P='P6k/8/8/8/8/8/8/1R2K3'
s=S(PR).lift(W,'a7').board(PR_N).board(PR_Q)
case('art_4_4_4_promotion_piece_final', s.ev, [
  {"kind":"touch-move","article":"4.4.4","player":W,"obligation":"promotion-piece-final","played":"a8=Q+","required":["a8=N"]}])
s=S(PR).place(W,'a8').lift(W,'a7').board(PR_Q).clock(W)
case('art_4_6_promotion_in_any_order', s.ev, [mv("a8=Q+",W,uci="a7a8q")])
s=S().move(W,'g1','f3',NF3,clock=False).move(W,'f3','h3',NH3,clock=False)
case('art_4_7_released_piece_stays', s.ev, [
  {"kind":"touch-move","article":"4.7","player":W,"obligation":"released-piece-stays","played":"Nh3","required":["Nf3"]}])
s=S(CA).move(W,'e1','g1',CA_KG1,clock=False).move(W,'g1','f1',CA_KF1,clock=False)
case('art_4_7_king_released_two_squares_must_castle', s.ev, [
  {"kind":"touch-move","article":"4.7","player":W,"obligation":"castle-after-king-released","played":"Kf1","required":["O-O"]}])
s=S(CA).move(W,'e1','g1',CA_KG1)
case('art_4_7_king_two_squares_clock_pressed', s.ev, [
  {"kind":"illegal-move","article":"7.5.1","player":W,"played":"e1g1","reason":"castling-not-completed","count":1,
   "replacement_must":{"obligation":"castle-after-king-released","required":["O-O"]}},
  {"kind":"sanction","article":"7.5.5","sanction":{"type":"time","to":B,"seconds":120}}])
E4_NF3_E5='rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR'
s=S().touch(W,'g1').move(W,'e2','e4',E4).touch(B,'e7').claim(B,'touch-move')
case('art_4_8_claim_forfeited_after_touching', s.ev, [
  {"kind":"touch-move","article":"4.3.1","player":W,"acts":"claim","claim_until":"claimant-touches-a-piece","required":["Nf3","Nh3"]},
  mv("e4",W),
  {"kind":"claim","player":B,"about":"touch-move","upheld":False}], args='--time-control rapid --supervised false')
s=S().touch(W,'g1').move(W,'e2','e4',E4).claim(B,'touch-move').move(W,'e4','e2',START,clock=False).move(W,'g1','f3',NF3)
case('art_4_8_claim_upheld_before_touching', s.ev, [
  {"kind":"touch-move","article":"4.3.1","player":W,"acts":"claim","claim_until":"claimant-touches-a-piece","required":["Nf3","Nh3"]},
  mv("e4",W),
  {"kind":"claim","player":B,"about":"touch-move","upheld":True},
  mv("Nf3",W)], args='--time-control rapid --supervised false')

# ---------------- Articles 5, 6 ----------------
SCH=['rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR','rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR',
 'rnbqkbnr/pppp1ppp/8/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR','r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR',
 'r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR','r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR',
 'r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR']
SCH_SAN=["e4","e5","Bc4","Nc6","Qh5","Nf6","Qxf7#"]
def colors(p):
    """The colour-only view of a placement: w/b for the pieces, runs of empty squares merged."""
    return merge(''.join('w' if ch.isupper() else 'b' if ch.isalpha() else ch for ch in p))
def merge(s):
    res=''; n=0
    for ch in s:
        if ch.isdigit(): n+=int(ch)
        else:
            if n: res+=str(n); n=0
            res+=ch
    if n: res+=str(n)
    return res
s=S()
for p in SCH: s.board(p)
who=[W,B]*4
case('art_6_2_1_no_clock_scholars_mate', s.ev,
  [mv(x,who[i],completed_by=("next-board" if i<6 else "game-end")) for i,x in enumerate(SCH_SAN)] +
  [{"kind":"game-end","article":"5.1.1","result":"1-0","reason":"checkmate","regular":True,"stands":True}])
s=S()
for p in SCH: s.colors(colors(p))
case('art_6_2_1_colors_only_scholars_mate', s.ev,
  [mv(x,who[i]) for i,x in enumerate(SCH_SAN)] + [{"kind":"game-end","result":"1-0","regular":True}])
s=S().move(W,'e2','e4',E4,clock=False).touch(B,'e7').move(B,'e7','e5',SCH[1],clock=False)
case('art_6_2_1_opponent_touch_completes_without_clock', s.ev, [mv("e4",W,completed_by="opponent-touch"), mv("e5",B,completed_by="end-of-stream")])
# Colours only, a settled board missed: Nxg7 Bxg7 and Nxe7 Bxe7 leave the same colours, so the engine reports
# the board rather than guess; the next full placement resolves it (the released c6 was kept).
AMB=['rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R','rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R',
     'rnbqkb1r/pppppppp/5n2/8/7N/8/PPPPPPPP/RNBQKB1R','rnbqkb1r/pppppppp/8/3n4/7N/8/PPPPPPPP/RNBQKB1R',
     'rnbqkb1r/pppppppp/8/3n1N2/8/8/PPPPPPPP/RNBQKB1R','rnbqkb1r/pp1ppppp/2p5/3n1N2/8/8/PPPPPPPP/RNBQKB1R']
AMB_BXG7='rnbqk2r/pp1pppbp/2p5/3n4/8/8/PPPPPPPP/RNBQKB1R'
s=S()
for p in AMB: s.colors(colors(p))
s.colors(colors(AMB_BXG7)).board(AMB_BXG7)
case('colors_missed_board_ambiguous_is_reported_not_guessed', s.ev,
  [mv(x,who[i],completed_by="next-board") for i,x in enumerate(["Nf3","Nf6","Nh4","Nd5","Nf5"])] +
  [{"kind":"unexplained-board","player":B,"seen":colors(AMB_BXG7),"expected":AMB[4]},
   mv("c6",B,completed_by="next-board"), mv("Nxg7+",W,completed_by="next-board"), mv("Bxg7",B,completed_by="end-of-stream")])
s=S().board('rnbqkbnr/pppppppp/8/8/8/8/8/RNBQKBNR').move(W,'e2','e4',E4)
case('unexplained_board_keeps_position', s.ev, [
  {"kind":"unexplained-board","player":W,"seen":"rnbqkbnr/pppppppp/8/8/8/8/8/RNBQKBNR","expected":START}, mv("e4",W)])

# ---------------- Article 7.5 ----------------
s=S(PR).move(W,'a7','a8',PR_P)
case('art_7_5_2_promotion_not_completed_becomes_queen', s.ev, [
  {"kind":"illegal-move","article":"7.5.2","player":W,"reason":"promotion-not-completed","played":"a7a8","count":1,"replacement_must":None},
  {"kind":"sanction","article":"7.5.5","sanction":{"type":"time","to":B,"seconds":120}},
  mv("a8=Q+",W,completed_by="clock")])
s=S(PR).move(W,'a7','a8',PR_P)
case('art_7_5_2_promotion_not_completed_2009', s.ev, [
  {"kind":"illegal-move","article":"7.4a","player":W,"reason":"promotion-not-completed","count":1,
   "replacement_must":{"obligation":"move-first-touched-own","required":["a8=B","a8=N","a8=Q+","a8=R+"]}},
  {"kind":"sanction","article":"7.4b","sanction":{"type":"time","to":B,"seconds":120}}], args='--laws 2009')
s=S().two_hands(W).move(W,'e2','e4',E4)
case('art_7_5_4_two_hands_penalised_as_illegal_move_stands', s.ev, [
  {"kind":"illegal-move","article":"7.5.4","player":W,"reason":"two-hands","played":"e2e4","count":1,"replacement_must":None},
  {"kind":"sanction","article":"7.5.5","sanction":{"type":"time","to":B,"seconds":120}},
  mv("e4",W,completed_by="clock")])
s=S().two_hands(W).move(W,'e2','e4',E4)
case('laws_2009_two_hands_left_to_the_arbiter', s.ev, [
  {"kind":"irregular","article":"4.1","player":W,"acts":"arbiter","what":"two-hands"},
  mv("e4",W,completed_by="clock")], args='--laws 2009')
s=S(PR).move(W,'a7','a8',PR_P).claim(B,'illegal-move')
case('rapid_2023_unsupervised_promotion_not_completed_stands_on_claim', s.ev, [
  {"kind":"illegal-move","article":"7.5.2","acts":"claim","reason":"promotion-not-completed","replacement_must":None},
  mv("a8=Q+",W,completed_by="clock"),
  {"kind":"claim","player":B,"about":"illegal-move","upheld":True,"note":"the move stands; the penalty applies"},
  {"kind":"sanction","article":"A.5.2","sanction":{"type":"time","to":B,"seconds":60}}], args='--time-control rapid --supervised false')
# Two illegal moves by White: the second loses (7.5.5), or draws when Black cannot checkmate.
IL='4k3/8/8/8/8/8/8/R3K1r1 w - - 0 1'
IL_B='4k3/8/8/8/8/8/8/R3K1r1'
IL_RA8='R3k3/8/8/8/8/8/8/4K1r1'
IL_RB2='4k3/8/8/8/8/8/1R6/4K1r1'
s=S(IL).move(W,'a1','b2',IL_RB2).move(W,'b2','a1',IL_B,clock=False).move(W,'a1','b2',IL_RB2)
case('art_7_5_5_second_illegal_move_loses', s.ev, [
  {"kind":"illegal-move","article":"7.5.1","reason":"impossible-move","count":1},
  {"kind":"sanction","article":"7.5.5","sanction":{"type":"time","to":B,"seconds":120}},
  {"kind":"illegal-move","article":"7.5.1","count":2},
  {"kind":"sanction","article":"7.5.5","player":W,"sanction":{"type":"loss"}},
  {"kind":"game-end","result":"0-1","reason":"illegal-moves","stands":True}])
ILK='4k3/8/8/8/8/8/8/R3K3 w - - 0 1'
ILK_B='4k3/8/8/8/8/8/8/R3K3'
ILK_RB2='4k3/8/8/8/8/8/1R6/4K3'
s=S(ILK).move(W,'a1','b2',ILK_RB2).move(W,'b2','a1',ILK_B,clock=False).move(W,'a1','b2',ILK_RB2)
case('art_7_5_5_second_illegal_move_draws_when_opponent_cannot_mate', s.ev, [
  {"kind":"illegal-move","count":1},{"kind":"sanction","sanction":{"type":"time","to":B,"seconds":120}},
  {"kind":"illegal-move","count":2},{"kind":"sanction","sanction":{"type":"draw","why":"opponent cannot checkmate"}},
  {"kind":"game-end","result":"1/2-1/2","reason":"illegal-moves"}])
s=S(IL).move(W,'a1','b2',IL_RB2).move(W,'b2','a1',IL_B,clock=False).move(W,'a1','b2',IL_RB2).move(W,'b2','a1',IL_B,clock=False).move(W,'a1','b2',IL_RB2)
case('laws_2009_third_illegal_move_loses', s.ev, [
  {"kind":"illegal-move","article":"7.4a","count":1},{"kind":"sanction","article":"7.4b","sanction":{"type":"time","to":B,"seconds":120}},
  {"kind":"illegal-move","article":"7.4a","count":2},{"kind":"sanction","article":"7.4b","sanction":{"type":"time","to":B,"seconds":120}},
  {"kind":"illegal-move","article":"7.4a","count":3},{"kind":"sanction","article":"7.4b","sanction":{"type":"loss"}},
  {"kind":"game-end","result":"0-1","reason":"illegal-moves"}], args='--laws 2009')
s=le_prefix().move(W,'c1','c3',LE_BC3)
case('blitz_2023_supervised_one_minute', s.ev, LE_RULINGS[:4]+[
  {"kind":"illegal-move","article":"7.5.1","acts":"arbiter","count":1},
  {"kind":"sanction","article":"A.3","sanction":{"type":"time","to":B,"seconds":60}}], args='--time-control blitz')
s=le_prefix().move(W,'c1','c3',LE_BC3).claim(B,'illegal-move')
case('rapid_2023_unsupervised_illegal_move_on_claim', s.ev, LE_RULINGS[:4]+[
  {"kind":"illegal-move","article":"7.5.1","acts":"claim","claim_until":"claimant-completes-a-move","count":1},
  {"kind":"claim","player":B,"about":"illegal-move","upheld":True},
  {"kind":"sanction","article":"A.5.2","player":W,"acts":"claim","sanction":{"type":"time","to":B,"seconds":60}}], args='--time-control rapid --supervised false')
LE_BC3_E5='rnb1kbnr/ppp2ppp/8/3qp3/8/2B5/PPPP1PPP/RN1QKBNR'
s=le_prefix().move(W,'c1','c3',LE_BC3).move(B,'e7','e5',LE_BC3_E5).claim(B,'illegal-move')
case('rapid_2023_unsupervised_illegal_move_stands_unclaimed', s.ev, LE_RULINGS[:4]+[
  {"kind":"illegal-move","acts":"claim","count":1}, mv("e5",B),
  {"kind":"claim","player":B,"about":"illegal-move","upheld":False}], args='--time-control rapid --supervised false')
s=le_prefix().move(W,'c1','c3',LE_BC3).claim(B,'illegal-move')
case('blitz_2009_unsupervised_claim_wins', s.ev, LE_RULINGS[:4]+[
  {"kind":"illegal-move","article":"7.4a","acts":"claim","count":1},
  {"kind":"claim","player":B,"upheld":True},
  {"kind":"sanction","article":"B.3c","sanction":{"type":"loss"}},
  {"kind":"game-end","result":"0-1","reason":"illegal-moves"}], args='--laws 2009 --time-control blitz --supervised false')
s=le_prefix().move(W,'c1','c3',LE_BC3)
case('blitz_2009_supervised_as_standard', s.ev, LE_RULINGS[:4]+[
  {"kind":"illegal-move","article":"7.4a","acts":"arbiter","count":1},
  {"kind":"sanction","article":"7.4b","sanction":{"type":"time","to":B,"seconds":120}}], args='--laws 2009 --time-control blitz')
s=le_prefix().move(W,'c1','c3',LE_BC3).move(W,'c3','c1',LE_QXD5,clock=False).move(W,'b1','c3',LE_NC3)
case('rapid_2009_supervised_two_minutes', s.ev, LE_RULINGS[:4]+[
  {"kind":"illegal-move","article":"7.4a","count":1},
  {"kind":"sanction","article":"7.4b","sanction":{"type":"time","to":B,"seconds":120}}, mv("Nc3",W)], args='--laws 2009 --time-control rapid')

s=le_prefix().move(W,'c1','c3',LE_BC3).move(B,'e7','e5',LE_BC3_E5)
case('art_7_5_1_players_go_on_from_the_illegal_position', s.ev, LE_RULINGS[:4]+[
  {"kind":"illegal-move","article":"7.5.1","acts":"arbiter","count":1},
  {"kind":"sanction","article":"7.5.5","sanction":{"type":"time","to":B,"seconds":120}},
  # Black touches while White still owes the replacing move: flagged, then the engine follows the board.
  {"kind":"irregular","article":"4.2.1","player":B,"what":"touch-when-not-on-move","squares":["e7"]},
  mv("e5",B,completed_by="clock")])
s=le_prefix().move(W,'c1','c3',LE_BC3).move(W,'c3','c1',LE_QXD5,clock=False).move(W,'b1','c3',LE_NC3)
case('art_7_5_1_reinstated_then_replaced', s.ev, LE_RULINGS)

# ---------------- Chess960 ----------------
NOTE960='Chess960: rook touched before the king, so castling on that side is not allowed (4.4.2); an appeal may allow it (Nepomniachtchi-So 2019 was replayed): a doubtful case'
C9='1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R1K2R1 w GBgb - 0 1'
C9_OO='1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1'
C9_RF1='1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R1K1R2'
s=S(C9).touch(W,'d1').lift(W,'d1').lift(W,'g1').place(W,'f1').place(W,'g1').board(C9_OO).clock(W)
case('chess960_castling_king_first', s.ev, [mv("O-O",W,uci="d1g1")], args='--variant chess960')
s=S(C9).touch(W,'g1').lift(W,'g1').place(W,'f1').board(C9_RF1).lift(W,'d1').place(W,'g1').board(C9_OO)
case('chess960_rook_first_is_a_rook_move_doubtful', s.ev, [
  {"kind":"touch-move","article":"4.4.2","player":W,"acts":"arbiter","obligation":"move-rook-not-castle","played":"O-O","required":["Re1","Rf1","Rh1"],"note":NOTE960}], args='--variant chess960')


# ---------------- the real clip ----------------
# ../shared/footage/real/scholarsmate.truth.json, by hand: first touch, lift, place and still frames of each move
# (20 fps, t = frame / 20). No clock is visible: every move is completed by the opponent's first touch, and the
# mate at once. Qxf7: the queen is lowered onto f7, then the same hand takes the f7 pawn off (frame 259).
TRUTH=[(W,'e2','e4',33,36,42,None),(B,'e7','e5',46,48,57,60),(W,'d1','h5',64,70,81,85),(B,'b8','c6',90,96,104,108),
       (W,'f1','c4',153,156,163,184),(B,'g8','f6',194,199,205,208)]
REAL=['rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR','rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR',
 'rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR','r1bqkbnr/pppp1ppp/2n5/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR',
 'r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR','r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR',
 'r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR']
ev=[]
def at(f, **kw):
    e={"t":round(f/20,2),"frame":f}; e.update(kw); ev.append(e)
for k,(by,frm,to,touch,lift,place,still) in enumerate(TRUTH):
    at(touch,type="touch",by=by,square=frm); at(lift,type="lift",by=by,square=frm); at(place,type="place",by=by,square=to)
    if still: at(still,type="board",placement=REAL[k])
at(222,type="touch",by=W,square='h5'); at(226,type="lift",by=W,square='h5'); at(259,type="lift",by=W,square='f7')
at(260,type="place",by=W,square='f7'); at(263,type="board",placement=REAL[6])
case('real_scholarsmate_truth', ev,
  [mv(x,who[i],completed_by="opponent-touch",t=TRUTH[i+1][3]/20,frame=TRUTH[i+1][3]) for i,x in enumerate(["e4","e5","Qh5","Nc6","Bc4"])] +
  [mv("Nf6",B,completed_by="opponent-touch",frame=222), mv("Qxf7#",W,completed_by="game-end",frame=260),
   {"kind":"game-end","article":"5.1.1","result":"1-0","reason":"checkmate","regular":True,"stands":True,"frame":260}])

# Streams that end with a move ruled against under touch-move: the board shows it, so the score records it
# at the end of the stream, with a note (only a mate by an irregular move stays open under 2023, 5.1.1).
EOS_NOTE="no clock press seen before the end of the stream; ruled against under touch-move; the stream ended before it was replaced"
for name,san,player in [('art_4_3_1_first_touched_own_piece','e4',W),('art_4_3_2_first_touched_opponent_piece','Nf3',W),
        ('art_4_3_3_capture_impossible_first_piece_moves','exd5',W),('art_4_3_3_capture_with_touched_own','Nf3',W),
        ('art_4_3_3_order_unclear_own_piece_first','exd5',W),('art_4_4_1_king_and_rook_castle','Kf1',W),
        ('art_4_4_2_rook_first_no_castling','O-O',W),('art_4_4_3_king_then_rook_castling_illegal','Rh3',W),
        ('art_4_4_4_promotion_piece_final','a8=Q+',W),('art_4_7_king_released_two_squares_must_castle','Kf1',W),
        ('art_4_7_released_piece_stays','Nh3',W),('chess960_rook_first_is_a_rook_move_doubtful','O-O',W),
        ('seminar_touch_queen_play_king','Kh5',W)]:
    cases[name][1].append(mv(san,player,completed_by="end-of-stream",note=EOS_NOTE))

for name,(ev,exp,args) in cases.items():
    with open(f'{OUT}/{name}.jsonl','w') as f:
        for e in ev: f.write(json.dumps(e,separators=(',',':'))+'\n')
    with open(f'{OUT}/{name}.expected.jsonl','w') as f:
        for e in exp: f.write(json.dumps(e,separators=(',',':'))+'\n')
    if args:
        open(f'{OUT}/{name}.args','w').write(args+'\n')
print(len(cases),'cases')
