//! A hall of machines: two `arbiter serve --nats` and one `arbiter hub`, with Debian's `nats-server -js` on a
//! loopback port. The hub and the broker are stopped and started again mid-game; the hub ends with every
//! ruling of every board, none twice.
#![cfg(feature = "serve")]

mod serve_support;

use std::collections::HashSet;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use serve_support::*;

fn nats_server() -> String {
    for p in [
        "/usr/sbin/nats-server",
        "/usr/bin/nats-server",
        "/usr/local/bin/nats-server",
    ] {
        if std::path::Path::new(p).exists() {
            return p.to_string();
        }
    }
    panic!("nats-server is missing: install Debian's `nats-server` package (scripts/setup does)");
}

fn start_nats(port: u16, store: &std::path::Path) -> Child {
    let child = Command::new(nats_server())
        .args([
            "-js",
            "-a",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-sd",
            store.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start nats-server");
    wait_for(30, "nats-server to listen", || {
        std::net::TcpStream::connect(("127.0.0.1", port)).ok()
    });
    child
}

fn stop(child: &mut Child) {
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let _ = child.wait();
}

fn hub(port: u16, data: &std::path::Path) -> Server {
    serve_cmd(&[
        "hub",
        "--nats",
        &format!("nats://127.0.0.1:{port}"),
        "--data",
        data.to_str().unwrap(),
    ])
}

fn rulings(base: &str, id: &str) -> Vec<Value> {
    get_json(&format!("{base}/api/boards/{id}/rulings"))
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn the_hub_ends_with_every_ruling_once_across_hub_and_broker_restarts() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let store = temp("nats-store");
    let mut broker = start_nats(port, &store);
    let url = format!("nats://127.0.0.1:{port}");
    let src = temp("nats-src");
    let game_a = write(&src, "a.jsonl", &long_game(80, 0.025));
    let game_b = write(&src, "b.jsonl", &long_game(60, 0.03));
    let (da, db, dh) = (temp("nats-serve-a"), temp("nats-serve-b"), temp("nats-hub"));
    let a = serve(&[
        "--data",
        da.to_str().unwrap(),
        "--nats",
        &url,
        "--board",
        &format!("a1=events:{}", game_a.display()),
        "--board",
        &format!("a2=events:{}", game_b.display()),
    ]);
    let b = serve(&[
        "--data",
        db.to_str().unwrap(),
        "--nats",
        &url,
        "--board",
        &format!("b1=events:{}", game_a.display()),
    ]);
    let mut h = hub(port, &dh);
    wait_for(60, "the hub to see moves", || {
        let boards = get_json(&format!("{}/api/boards", h.base));
        boards
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["moves"].as_array().unwrap().len() >= 3)
            .then_some(())
    });
    // The hub dies without warning; then the broker is stopped and started again while the games go on.
    kill9(&mut h.child);
    std::thread::sleep(Duration::from_millis(500));
    stop(&mut broker);
    std::thread::sleep(Duration::from_millis(1000));
    let mut broker = start_nats(port, &store);
    let h = hub(port, &dh);
    for (server, id) in [(&a, "a1"), (&a, "a2"), (&b, "b1")] {
        let ended = wait_status(&server.base, id, "ended", 120);
        let want = rulings(&server.base, id);
        assert!(!want.is_empty());
        let got = wait_for(120, &format!("the hub to have every ruling of {id}"), || {
            let (code, body) = get(&format!("{}/api/boards/{id}/rulings", h.base));
            let got: Vec<Value> = if code == 200 {
                serde_json::from_str(&body).unwrap()
            } else {
                Vec::new()
            };
            (got.len() >= want.len()).then_some(got)
        });
        assert_eq!(got, want, "board {id}: the hub's rulings are the serve's, each once");
        let ids: HashSet<u64> = got.iter().map(|r| r["id"].as_u64().unwrap()).collect();
        assert_eq!(ids.len(), got.len());
        assert_eq!(board(&h.base, id)["moves"], ended["moves"]);
    }
    // Read-only: claims go to the serve that watches the board.
    let (code, out) = post(
        &format!("{}/api/boards/a1/claims", h.base),
        r#"{"by":"white","about":"touch-move"}"#,
    );
    assert!(code >= 400 && out.to_string().contains("read-only"), "{code} {out}");
    stop(&mut broker);
}
