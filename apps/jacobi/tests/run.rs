//! The application and its baselines as a user runs them, on small grids:
//! alone and under `mpirun -np 2` (on the emulator unless a GPU is there),
//! each checked against the CPU reference (bitwise for the grid).

use std::process::Command;

fn run(procs: Option<u32>, program: &str, args: &[&str]) -> String {
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
        .args(args)
        .arg("--check")
        .env("DCUDA_EMULATOR_RANKS", "4")
        .env("DCUDA_EMULATOR_THREADS", "256")
        .output()
        .expect("cannot start the program (mpirun needs OpenMPI's openmpi-bin)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{program} {args:?} failed:\n{text}");
    assert!(
        text.contains(", correct"),
        "{program} {args:?} did not check:\n{text}"
    );
    text
}

/// Odd sizes: the rows do not divide evenly among the ranks.
const GRID: [&str; 8] = [
    "--nx",
    "37",
    "--ny",
    "31",
    "--iters",
    "12",
    "--threads",
    "32",
];

fn with(extra: &[&'static str]) -> Vec<&'static str> {
    GRID.iter().chain(extra).copied().collect()
}

#[test]
fn jacobi_alone() {
    let text = run(None, env!("CARGO_BIN_EXE_jacobi"), &GRID);
    assert!(text.contains("1 process(es) x 4 ranks"), "{text}");
}

#[test]
fn jacobi_one_rank() {
    run(None, env!("CARGO_BIN_EXE_jacobi"), &with(&["--ranks", "1"]));
}

#[test]
fn jacobi_spans_two_processes() {
    let text = run(Some(2), env!("CARGO_BIN_EXE_jacobi"), &GRID);
    assert!(text.contains("2 process(es) x 4 ranks"), "{text}");
}

#[test]
fn baseline_alone() {
    run(
        None,
        env!("CARGO_BIN_EXE_jacobi_mpi"),
        &with(&["--ranks", "3"]),
    );
}

#[test]
fn overlapped_baseline_alone() {
    run(
        None,
        env!("CARGO_BIN_EXE_jacobi_mpi"),
        &with(&["--ranks", "3", "--overlap"]),
    );
}

#[test]
fn baselines_span_two_processes() {
    let text = run(
        Some(2),
        env!("CARGO_BIN_EXE_jacobi_mpi"),
        &with(&["--ranks", "3"]),
    );
    assert!(text.contains("2 process(es) x 3 blocks"), "{text}");
    run(
        Some(2),
        env!("CARGO_BIN_EXE_jacobi_mpi"),
        &with(&["--ranks", "3", "--overlap"]),
    );
}

#[test]
fn too_many_ranks_is_an_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_jacobi"))
        .args([
            "--size",
            "6",
            "--iters",
            "1",
            "--threads",
            "32",
            "--ranks",
            "5",
        ])
        .env("DCUDA_EMULATOR_RANKS", "8")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(text.contains("5 ranks for 4 interior rows"), "{text}");
}
