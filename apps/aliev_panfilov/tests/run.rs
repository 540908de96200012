//! The application and its baselines as a user runs them, on small grids:
//! alone and under `mpirun -np 2` with the processes split in rows and in
//! columns (on the emulator unless a GPU is there), each checked bitwise
//! against the CPU reference.

use app_support::testing::{
    run_checked as run, run_checked_as_nodes, run_checked_direct, run_failing,
};

/// Odd sizes: no split is even.
const GRID: [&str; 8] = [
    "--nx",
    "29",
    "--ny",
    "23",
    "--iters",
    "9",
    "--threads",
    "32",
];

fn with(extra: &[&'static str]) -> Vec<&'static str> {
    GRID.iter().chain(extra).copied().collect()
}

const DCUDA: &str = env!("CARGO_BIN_EXE_aliev_panfilov");
const BASELINE: &str = env!("CARGO_BIN_EXE_aliev_panfilov_mpi");

#[test]
fn ranks_in_a_grid_alone() {
    // By default tiles about four times as wide as tall: four one above
    // another here.
    let text = run(None, DCUDA, &GRID);
    assert!(text.contains("x 4 ranks (1 x 4)"), "{text}");
    run(None, DCUDA, &with(&["--ranks-x", "2"]));
    run(None, DCUDA, &with(&["--ranks", "1"]));
    // Two warps a rank claiming from the same counters, over several steps.
    run(None, DCUDA, &with(&["--ranks", "2", "--threads", "64"]));
    run(None, DCUDA, &with(&["--ranks-x", "4"]));
    // 3 × 3 tiles: corners, sides and one inside, each mirroring its
    // own sides' ghost points.
    run(None, DCUDA, &with(&["--ranks", "9", "--ranks-x", "3"]));
}

#[test]
fn processes_split_in_rows() {
    let text = run(Some(2), DCUDA, &GRID);
    assert!(text.contains("2 process(es) (1 x 2)"), "{text}");
}

#[test]
fn processes_split_in_columns() {
    let text = run(Some(2), DCUDA, &with(&["--procs-x", "2"]));
    assert!(text.contains("2 process(es) (2 x 1)"), "{text}");
    run(
        Some(2),
        DCUDA,
        &with(&["--procs-x", "2", "--ranks", "4", "--ranks-x", "2"]),
    );
}

#[test]
fn baselines_alone() {
    run(None, BASELINE, &with(&["--ranks", "3"]));
    run(
        None,
        BASELINE,
        &with(&[
            "--ranks",
            "3",
            "--overlap",
            "--walk",
            "stride",
            "--batch",
            "8",
        ]),
    );
    run(None, BASELINE, &with(&["--ranks", "2", "--threads", "64"]));
    // The claims walk asking for its next chunks ahead, as the rank
    // kernel's does.
    run(None, BASELINE, &with(&["--ranks", "3", "--ahead"]));
}

#[test]
fn baselines_span_two_processes() {
    for split in [&[][..], &["--procs-x", "2"][..]] {
        for overlap in [&[][..], &["--overlap"][..]] {
            let args: Vec<&str> = with(&["--ranks", "3"])
                .into_iter()
                .chain(split.iter().copied())
                .chain(overlap.iter().copied())
                .collect();
            run(Some(2), BASELINE, &args);
        }
    }
}

#[test]
fn bad_decompositions_are_errors() {
    let text = run_failing(
        DCUDA,
        &["--size", "5", "--threads", "32", "--ranks-x", "3"],
        4,
    );
    assert!(text.contains("3 × 1 tiles for 5 × 5 points"), "{text}");
    // The rank kernel walks by claims only; a batch is the stride walk's.
    let text = run_failing(DCUDA, &["--size", "8", "--walk", "stride"], 4);
    assert!(text.contains("--walk stride is the baseline's"), "{text}");
    let text = run_failing(DCUDA, &["--size", "8", "--batch", "2"], 4);
    assert!(text.contains("--batch 2 needs --walk stride"), "{text}");
    let text = run_failing(DCUDA, &["--size", "8", "--ahead"], 4);
    assert!(text.contains("--ahead is the baseline's"), "{text}");
    let text = run_failing(BASELINE, &["--size", "8", "--procs-x", "2"], 4);
    assert!(
        text.contains("--procs-x 2 does not divide 1 processes"),
        "{text}"
    );
}

/// Each process a node of its own (`DCUDA_NODE=process`): every byte
/// between the processes through the transport, as between machines.
#[test]
fn aliev_panfilov_as_two_nodes() {
    run_checked_as_nodes(2, DCUDA, &with(&["--procs-x", "2"]));
}

/// Between processes that map each other's memory (the emulator's IPC, as
/// a node's GPUs): the halos and collectives over the direct route.
#[test]
fn aliev_panfilov_over_the_direct_route() {
    run_checked_direct(2, DCUDA, &with(&["--procs-x", "2"]));
}
