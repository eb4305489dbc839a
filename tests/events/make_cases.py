import json, os
OUT='/work/main/tests/events'
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
    def lift(s, by, sq): return s.add(type="lift", by=by, square=sq)
    def place(s, by, sq): return s.add(type="place", by=by, square=sq)
    def board(s, p): return s.add(type="board", placement=p)
    def colors(s, c): return s.add(type="board", colors=c)
    def clock(s, by): return s.add(type="clock", by=by)
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
  {"kind":"touch-move","article":"4.3.1","player":B,"touched":["f8","e4"],"played":"Nf6","obligation":"move-first-touched-own","required":["Be7"]}])

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

for name,(ev,exp,args) in cases.items():
    with open(f'{OUT}/{name}.jsonl','w') as f:
        for e in ev: f.write(json.dumps(e,separators=(',',':'))+'\n')
    with open(f'{OUT}/{name}.expected.jsonl','w') as f:
        for e in exp: f.write(json.dumps(e,separators=(',',':'))+'\n')
    if args:
        open(f'{OUT}/{name}.args','w').write(args+'\n')
print(len(cases),'cases')
