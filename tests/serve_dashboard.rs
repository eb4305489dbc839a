//! The dashboard in a real headless Chromium (Debian's `chromium` + `chromium-driver`, driven over WebDriver):
//! the page loads, shows a tile per board, and a touch-move alert from a replayed stream appears live and can be
//! acknowledged by a click. Saves the screenshot to `target/tmp/dashboard.png` (docs/dashboard.png is a copy).
#![cfg(feature = "serve")]

mod serve_support;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use serve_support::*;

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";

struct Driver {
    child: Child,
    base: String,
    session: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = ureq::delete(&format!("{}/session/{}", self.base, self.session)).call();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn call(method: &str, url: &str, body: Option<Value>) -> Value {
    let req = ureq::request(method, url).timeout(Duration::from_secs(60));
    let r = match body {
        Some(b) => req.send_json(b),
        None => req.call(),
    };
    match r {
        Ok(r) => r.into_json().unwrap(),
        Err(ureq::Error::Status(code, r)) => panic!("WebDriver {method} {url}: {code} {}", r.into_string().unwrap()),
        Err(e) => panic!("WebDriver {method} {url}: {e}"),
    }
}

impl Driver {
    fn start() -> Driver {
        for bin in [CHROMEDRIVER, CHROMIUM] {
            assert!(
                std::path::Path::new(bin).exists(),
                "{bin} is missing: install Debian's `chromium` and `chromium-driver` (scripts/setup does)"
            );
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let base = format!("http://127.0.0.1:{port}");
        wait_for(30, "chromedriver", || ureq::get(&format!("{base}/status")).call().ok());
        let profile = temp("chromium-profile");
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--window-size=1280,900",
        ];
        let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile.display()));
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args}
        }}});
        let out = call("POST", &format!("{base}/session"), Some(caps));
        let session = out["value"]["sessionId"]
            .as_str()
            .expect("a WebDriver session")
            .to_string();
        Driver { child, base, session }
    }

    fn url(&self, path: &str) -> String {
        format!("{}/session/{}{path}", self.base, self.session)
    }

    fn find_all(&self, css: &str) -> Vec<String> {
        let out = call(
            "POST",
            &self.url("/elements"),
            Some(json!({"using": "css selector", "value": css})),
        );
        out["value"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e.as_object()?.values().next()?.as_str().map(str::to_string))
            .collect()
    }

    fn text(&self, element: &str) -> String {
        call("GET", &self.url(&format!("/element/{element}/text")), None)["value"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }
}

/// Decodes standard base64 (the screenshot).
fn base64(text: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = text.bytes().filter(|c| !matches!(c, b'=' | b'\n' | b'\r')).collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= (val(*c) as u32) << (18 - 6 * i);
        }
        out.extend(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// `lines` with every `t` moved `by` seconds later (so the alert arrives after the page has loaded).
fn shifted(path: &std::path::Path, by: f64) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v["t"] = json!(v["t"].as_f64().unwrap() + by);
            v.to_string() + "\n"
        })
        .collect()
}

#[test]
fn the_dashboard_shows_the_boards_and_a_touch_move_alert_appears_live() {
    let driver = Driver::start();
    let data = temp("dash");
    let dir = temp("dash-src");
    let ev = repo().join("tests/events");
    let touch = write(
        &dir,
        "touch.jsonl",
        &shifted(&ev.join("art_4_3_1_first_touched_own_piece.jsonl"), 3.0),
    );
    let mate = ev.join("real_scholarsmate_truth.jsonl");
    let s = serve(&[
        "--data",
        data.to_str().unwrap(),
        "--board",
        &format!("board-1=events:{}", mate.display()),
        "--board",
        &format!("board-2=events:{}", touch.display()),
    ]);
    call("POST", &driver.url("/url"), Some(json!({"url": s.base.clone() + "/"})));
    let tiles = wait_for(30, "two board tiles", || {
        let t = driver.find_all(".tile");
        (t.len() == 2).then_some(t)
    });
    assert!(driver.text(&tiles[0]).contains("board-1"));
    let alert = wait_for(60, "the touch-move alert", || {
        driver
            .find_all(r#".tile[data-board="board-2"] .alert[data-kind="touch-move"]"#)
            .into_iter()
            .next()
    });
    let text = driver.text(&alert);
    assert!(
        text.contains("4.3.1") && text.to_lowercase().contains("arbiter"),
        "{text}"
    );
    // Let the other board play its game out, then keep the picture for the docs.
    wait_status(&s.base, "board-1", "ended", 60);
    wait_for(30, "the mate on the page", || {
        driver
            .text(&driver.find_all(".tile")[0])
            .contains("Qxf7#")
            .then_some(())
    });
    let shot = call("GET", &driver.url("/screenshot"), None);
    let png = base64(shot["value"].as_str().unwrap());
    assert_eq!(&png[1..4], b"PNG");
    std::fs::write(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboard.png"),
        &png,
    )
    .unwrap();
    // A click acknowledges it; the server records when.
    // Tiles are redrawn as events arrive: find the alert again just before clicking it.
    let alert = driver
        .find_all(r#".tile[data-board="board-2"] .alert[data-kind="touch-move"]"#)
        .remove(0);
    call("POST", &driver.url(&format!("/element/{alert}/click")), Some(json!({})));
    let acked = wait_for(30, "the acknowledgement", || {
        let b = board(&s.base, "board-2");
        b["alerts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| !a["acknowledged"].is_null())
            .cloned()
    });
    assert!(acked["acknowledged"]["at_ms"].as_u64().unwrap() > 0);
    wait_for(30, "the alert shown as acknowledged", || {
        driver.find_all(".alert.acked").into_iter().next()
    });
}
