//! The examples check their own results: run them as a user would.

use std::process::Command;

fn run(exe: &str) {
    let out = Command::new(exe).output().expect("start the example");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{exe} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("correct on the"), "{stdout}");
}

#[test]
fn saxpy() {
    run(env!("CARGO_BIN_EXE_saxpy"));
}

#[test]
fn rank_stats() {
    run(env!("CARGO_BIN_EXE_rank_stats"));
}
