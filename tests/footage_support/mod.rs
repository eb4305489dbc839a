//! What the tests on real footage share: where the footage is, and scratch folders.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::time::Duration;

/// A file of the team's real footage, which the tests read from
/// `../shared/footage/real` beside the repository (as CI has it).
pub fn footage(name: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/footage/real")
        .join(name);
    assert!(
        p.exists(),
        "real footage {} is missing: the tests need ../shared/footage/real beside the repository",
        p.display()
    );
    p
}

/// A fresh, empty scratch folder for one test.
pub fn temp_dir(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("arbiter-{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// A camera that serves `body` over HTTP on 127.0.0.1, drops each of its first
/// `connections` connections after `cut` bytes, then stops listening: a network
/// stream that drops and at last disappears. Returns its URL.
pub fn flaky_server(body: Vec<u8>, cut: usize, connections: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let url = format!("http://{}/cam.avi", listener.local_addr().expect("its address"));
    std::thread::spawn(move || {
        for _ in 0..connections {
            let Ok((mut s, _)) = listener.accept() else { return };
            let mut buf = [0u8; 4096];
            let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
            let _ = s.read(&mut buf);
            let head = format!(
                "HTTP/1.0 200 OK\r\nContent-Type: video/x-msvideo\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            let _ = s.write_all(head.as_bytes());
            let _ = s.write_all(&body[..cut]);
        }
    });
    url
}
