//! The application and its baseline, as a user runs them: alone, and under
//! `mpirun -np 2` (on the emulator unless a GPU is there).

use std::process::Command;

fn run(procs: Option<u32>, program: &str) -> String {
    let mut cmd = match procs {
        None => Command::new(program),
        Some(n) => {
            let mut c = Command::new("mpirun");
            c.args([
                "--allow-run-as-root",
                "--oversubscribe",
                "--bind-to",
                "none",
                "-np",
            ])
            .arg(n.to_string())
            .arg(program);
            c
        }
    };
    let out = cmd
        .env("DCUDA_EMULATOR_RANKS", "8")
        .output()
        .expect("cannot start the program (mpirun needs OpenMPI's openmpi-bin)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{program} failed:\n{text}");
    text
}

#[test]
fn distributed_sum_alone() {
    let text = run(None, env!("CARGO_BIN_EXE_distributed_sum"));
    assert!(text.contains("correct on the"), "{text}");
}

#[test]
fn baseline_alone() {
    let text = run(None, env!("CARGO_BIN_EXE_distributed_sum_mpi"));
    assert!(text.contains("correct on the"), "{text}");
}

#[test]
fn distributed_sum_spans_two_processes() {
    let text = run(Some(2), env!("CARGO_BIN_EXE_distributed_sum"));
    assert!(
        text.contains("(2 processes) x 128 threads correct"),
        "{text}"
    );
}

#[test]
fn baseline_spans_two_processes() {
    let text = run(Some(2), env!("CARGO_BIN_EXE_distributed_sum_mpi"));
    assert!(
        text.contains("(2 processes) x 128 threads correct"),
        "{text}"
    );
}
