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

#[test]
fn moving_data() {
    run(env!("CARGO_BIN_EXE_moving_data"));
}

/// The same under `mpirun -np 3`: the plans' staged route.
#[test]
fn moving_data_on_three_processes() {
    // `timeout`: a hung job fails the test instead of stalling it.
    let out = Command::new("timeout")
        .args([
            "120",
            "mpirun",
            "--allow-run-as-root",
            "--oversubscribe",
            "--bind-to",
            "none",
            "-np",
            "3",
        ])
        .arg(env!("CARGO_BIN_EXE_moving_data"))
        .env("DCUDA_BACKEND", "emulator")
        .output()
        .expect("start mpirun (OpenMPI)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("on 12 ranks of 3 processes, 5 steps: correct on the"),
        "{stdout}"
    );
}
