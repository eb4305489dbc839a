//! Helpers for the `serve` tests: start the real binary on a free loopback port, talk HTTP to it, make event
//! streams.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub struct Server {
    pub child: Child,
    pub base: String,
    pub addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh temporary folder for this test.
pub fn temp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Starts `arbiter serve ARGS --listen 127.0.0.1:0` (unless ARGS give --listen) and waits for its address.
pub fn serve(args: &[&str]) -> Server {
    let mut all = vec!["serve"];
    all.extend_from_slice(args);
    serve_cmd(&all)
}

/// Starts `arbiter ARGS` (a subcommand that serves HTTP) on a free loopback port and waits for its address.
pub fn serve_cmd(args: &[&str]) -> Server {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    cmd.args(args);
    if !args.contains(&"--listen") {
        cmd.args(["--listen", "127.0.0.1:0"]);
    }
    let mut child = cmd
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("start arbiter serve");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("listening on http://").nth(1) {
                let _ = tx.send(Ok(rest.trim_end_matches('/').to_string()));
            } else if line.contains("error") {
                let _ = tx.send(Err(line));
            }
        }
    });
    let addr = match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(Ok(addr)) => addr,
        Ok(Err(line)) => panic!("arbiter serve failed: {line}"),
        Err(_) => panic!("arbiter serve did not say where it listens within 60 s"),
    };
    Server {
        child,
        base: format!("http://{addr}"),
        addr,
    }
}

/// `arbiter serve` with one board `b` replaying `events` as fast as possible, its data in a fresh folder.
pub fn serve_replay(test: &str, events: &str) -> Server {
    let data = temp(test);
    let board = format!("b=events:{events}");
    serve(&[
        "--data",
        data.to_str().unwrap(),
        "--as-fast-as-possible",
        "--board",
        &board,
    ])
}

pub fn get(url: &str) -> (u16, String) {
    match ureq::get(url).timeout(Duration::from_secs(30)).call() {
        Ok(r) => (r.status(), r.into_string().unwrap_or_default()),
        Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap_or_default()),
        Err(e) => panic!("GET {url}: {e}"),
    }
}

pub fn get_json(url: &str) -> Value {
    let (code, body) = get(url);
    assert_eq!(code, 200, "GET {url}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {url}: not JSON ({e}): {body}"))
}

pub fn post(url: &str, body: &str) -> (u16, Value) {
    let r = ureq::post(url)
        .timeout(Duration::from_secs(30))
        .set("Content-Type", "application/json")
        .send_string(body);
    let (code, text) = match r {
        Ok(r) => (r.status(), r.into_string().unwrap_or_default()),
        Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap_or_default()),
        Err(e) => panic!("POST {url}: {e}"),
    };
    (code, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// Polls `f` every 50 ms until it gives a value (or fails after `secs`).
pub fn wait_for<T>(secs: u64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < until, "timed out after {secs} s waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub fn board(base: &str, id: &str) -> Value {
    get_json(&format!("{base}/api/boards/{id}"))
}

pub fn wait_status(base: &str, id: &str, status: &str, secs: u64) -> Value {
    wait_for(secs, &format!("board {id} to be {status}"), || {
        let b = board(base, id);
        (b["status"] == status).then_some(b)
    })
}

/// Reads SSE events (`id`, `event`, `data`) from `path` until `stop` says so; `last_id` goes in Last-Event-ID.
pub fn sse(addr: &str, path: &str, last_id: Option<u64>, mut stop: impl FnMut(&SseMsg) -> bool) -> Vec<SseMsg> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let resume = last_id.map(|n| format!("Last-Event-ID: {n}\r\n")).unwrap_or_default();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n{resume}\r\n"
    )
    .unwrap();
    let mut reader = BufReader::new(s);
    let mut line = String::new();
    // Headers.
    loop {
        line.clear();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
    }
    let mut out = Vec::new();
    let mut msg = SseMsg::default();
    // Chunked transfer: chunk-size lines are hex numbers alone; SSE lines have a `field:` form.
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let l = line.trim_end_matches(['\r', '\n']);
        if let Some(v) = l.strip_prefix("id:") {
            msg.id = v.trim().parse().ok();
        } else if let Some(v) = l.strip_prefix("event:") {
            msg.event = v.trim().to_string();
        } else if let Some(v) = l.strip_prefix("data:") {
            msg.data.push_str(v.trim_start());
        } else if l.is_empty() && !msg.event.is_empty() {
            let done = stop(&msg);
            out.push(std::mem::take(&mut msg));
            if done {
                break;
            }
        }
    }
    let mut rest = Vec::new();
    let _ = reader.get_mut().set_read_timeout(Some(Duration::from_millis(1)));
    let _ = reader.read_to_end(&mut rest);
    out
}

#[derive(Default, Debug, Clone)]
pub struct SseMsg {
    pub id: Option<u64>,
    pub event: String,
    pub data: String,
}

/// The rulings the engine gives for an event file, as JSON (the reference for what the server must announce).
pub fn reference_rulings(path: &Path, config: arbiter::rules::Config) -> Vec<Value> {
    let events = arbiter::rules::read_events(BufReader::new(std::fs::File::open(path).unwrap())).unwrap();
    let mut engine = arbiter::rules::Engine::new(config).unwrap();
    let mut out = Vec::new();
    for e in &events {
        out.extend(engine.push(e));
    }
    let last = events.last().unwrap();
    out.extend(engine.finish(last.t, last.frame));
    out.iter().map(|r| serde_json::to_value(r).unwrap()).collect()
}

/// Strips the server's `id` so rulings compare with the engine's.
pub fn without_id(mut v: Vec<Value>) -> Vec<Value> {
    for r in &mut v {
        if let Some(o) = r.as_object_mut() {
            o.remove("id");
        }
    }
    v
}

/// A long, deterministic game as tracker events (touch, lift, place, settled board per half-move), `dt` seconds
/// apart, as JSON Lines: pseudo-random legal moves until the game ends or `plies` are played.
pub fn long_game(plies: usize, dt: f64) -> String {
    use shakmaty::{Chess, Position};
    let mut pos = Chess::default();
    let mut seed: u64 = 0x9e3779b97f4a7c15;
    let mut t = 0.0;
    let mut frame = 0u64;
    let mut out = String::new();
    for _ in 0..plies {
        // Castling is left out: the tracker reports the king's squares, shakmaty's move names the rook's.
        let moves: Vec<_> = pos.legal_moves().into_iter().filter(|m| !m.is_castle()).collect();
        if moves.is_empty() {
            break;
        }
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mv = moves[(seed >> 33) as usize % moves.len()];
        let by = if pos.turn() == shakmaty::Color::White {
            "white"
        } else {
            "black"
        };
        let from = mv.from().unwrap();
        let to = mv.to();
        let after = pos.clone().play(mv).unwrap();
        let placement = after.board().board_fen().to_string();
        for line in [
            format!(r#"{{"type":"touch","by":"{by}","square":"{from}"}}"#),
            format!(r#"{{"type":"lift","by":"{by}","square":"{from}"}}"#),
            format!(r#"{{"type":"place","by":"{by}","square":"{to}"}}"#),
            format!(r#"{{"type":"board","placement":"{placement}"}}"#),
        ] {
            t += dt;
            frame += 3;
            out.push_str(&format!("{{\"t\":{t:.3},\"frame\":{frame},{}\n", &line[1..]));
        }
        pos = after;
        if pos.is_game_over() {
            break;
        }
    }
    out
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Kills a process with SIGKILL (no chance to flush anything).
pub fn kill9(child: &mut Child) {
    let _ = Command::new("kill").args(["-9", &child.id().to_string()]).status();
    let _ = child.wait();
}
