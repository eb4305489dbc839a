//! What the tests on real footage share: where the footage is, and scratch folders.
#![allow(dead_code)]

use std::path::PathBuf;

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
