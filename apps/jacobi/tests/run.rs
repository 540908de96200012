//! The application and its baselines as a user runs them, on small grids:
//! alone and under `mpirun -np 2` (on the emulator unless a GPU is there),
//! each checked against the CPU reference (bitwise for the grid).

use app_support::testing::{
    run_checked as run, run_checked_as_nodes, run_checked_direct, run_failing,
};

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

/// Rows of a multiple of 4 columns: the sweep takes four columns at a time
/// (the arrays are 16-byte aligned on the emulator as on the GPU).
const GRID4: [&str; 8] = [
    "--nx",
    "40",
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
fn four_columns_at_a_time_alone_and_across_processes() {
    run(None, env!("CARGO_BIN_EXE_jacobi"), &GRID4);
    run(Some(2), env!("CARGO_BIN_EXE_jacobi"), &GRID4);
    let mut baseline = GRID4.to_vec();
    baseline.extend(["--ranks", "3"]);
    run(None, env!("CARGO_BIN_EXE_jacobi_mpi"), &baseline);
    baseline.push("--overlap");
    run(Some(2), env!("CARGO_BIN_EXE_jacobi_mpi"), &baseline);
}

/// Four columns, the narrowest grid a group spans: both boundaries in one.
#[test]
fn one_group_of_four_columns() {
    let grid = ["--nx", "4", "--ny", "9", "--iters", "5", "--threads", "32"];
    run(None, env!("CARGO_BIN_EXE_jacobi"), &grid);
}

#[test]
fn jacobi_one_rank() {
    run(None, env!("CARGO_BIN_EXE_jacobi"), &with(&["--ranks", "1"]));
}

/// Two ranks: each is the other's neighbour on both sides, once next to
/// it in the process's rows (a notification) and once across the periodic
/// ends (a put).
#[test]
fn jacobi_two_ranks() {
    run(None, env!("CARGO_BIN_EXE_jacobi"), &with(&["--ranks", "2"]));
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
    let text = run_failing(
        env!("CARGO_BIN_EXE_jacobi"),
        &[
            "--size",
            "6",
            "--iters",
            "1",
            "--threads",
            "32",
            "--ranks",
            "5",
        ],
        8,
    );
    assert!(text.contains("5 ranks for 4 interior rows"), "{text}");
}

/// Between processes that map each other's memory (the emulator's IPC, as
/// a node's GPUs): the halos and the norm over the direct route.
#[test]
fn jacobi_over_the_direct_route() {
    run_checked_direct(2, env!("CARGO_BIN_EXE_jacobi"), &GRID);
}

/// Each process a node of its own (`DCUDA_NODE=process`): every byte
/// between the processes through the transport, as between machines.
#[test]
fn jacobi_as_two_nodes() {
    run_checked_as_nodes(2, env!("CARGO_BIN_EXE_jacobi"), &GRID);
}
