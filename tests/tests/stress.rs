//! The randomized many-to-many stress test on 1, 2 and 3 processes (the
//! emulator in CI). The seed is printed; a failure's output names it.

mod common;

use common::mpirun_outcome;

/// A seed for this run, the same for every process of a job.
fn seed() -> String {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() ^ d.as_secs() as u32)
        .unwrap_or(1)
        .to_string()
}

fn stress(procs: u32, args: &[&str]) -> String {
    let seed = seed();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--seed", &seed]);
    let (ok, text) = if procs == 1 {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_stress"))
            .args(&all)
            .env("DCUDA_BACKEND", "emulator")
            .output()
            .expect("cannot start the stress test");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    } else {
        mpirun_outcome(
            procs,
            env!("CARGO_BIN_EXE_stress"),
            &all,
            &[("DCUDA_EMULATOR_RANKS", "64")],
        )
    };
    assert!(
        ok,
        "stress on {procs} process(es) with seed {seed} failed:\n{text}"
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
