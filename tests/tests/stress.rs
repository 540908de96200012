//! The randomized many-to-many stress test on 1, 2 and 3 processes (the
//! emulator in CI). The seed is printed; a failure's output names it.

use std::process::Command;

/// A seed for this run, the same for every process of a job.
fn seed() -> String {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() ^ d.as_secs() as u32)
        .unwrap_or(1)
        .to_string()
}

fn stress(procs: u32, args: &[&str]) -> String {
    let program = env!("CARGO_BIN_EXE_stress");
    let seed = seed();
    let mut cmd = if procs == 1 {
        Command::new(program)
    } else {
        let mut c = Command::new("mpirun");
        c.args([
            "--allow-run-as-root",
            "--oversubscribe",
            "--bind-to",
            "none",
            "-np",
        ])
        .arg(procs.to_string())
        .arg(program);
        c
    };
    let out = cmd
        .args(args)
        .args(["--seed", &seed])
        .env("DCUDA_BACKEND", "emulator")
        .env("DCUDA_WATCHDOG_SECS", "60")
        .output()
        .expect("cannot start the stress test (mpirun needs openmpi-bin)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "stress on {procs} process(es) failed:\n{text}"
    );
    for p in 0..procs {
        assert!(
            text.contains(&format!("stress: process {p} of {procs}:")),
            "{text}"
        );
    }
    text
}

#[test]
fn one_process_many_to_many() {
    stress(
        1,
        &["--ranks", "16", "--fanout", "5", "--messages", "40000"],
    );
}

#[test]
fn two_processes_many_to_many() {
    stress(2, &["--ranks", "4", "--fanout", "3", "--rounds", "60"]);
}

#[test]
fn three_processes_many_to_many() {
    stress(3, &["--ranks", "3", "--fanout", "4", "--rounds", "40"]);
}
