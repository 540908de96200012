//! The application and its baselines as a user runs them, on small grids:
//! alone and under `mpirun -np 2` (on the emulator unless a GPU is there),
//! each checked bitwise against the CPU reference.

use app_support::testing::{
    run_checked as run, run_checked_as_nodes, run_checked_direct, run_failing,
};

/// Odd sizes: the rows do not divide evenly among the ranks.
const GRID: [&str; 10] = [
    "--nx",
    "13",
    "--ny",
    "23",
    "--nz",
    "3",
    "--iters",
    "7",
    "--threads",
    "32",
];

fn with(extra: &[&'static str]) -> Vec<&'static str> {
    GRID.iter().chain(extra).copied().collect()
}

#[test]
fn hdiff_alone() {
    let text = run(None, env!("CARGO_BIN_EXE_hdiff"), &GRID);
    assert!(text.contains("1 process(es) x 4 ranks"), "{text}");
}

#[test]
fn hdiff_one_rank() {
    run(
        None,
        env!("CARGO_BIN_EXE_hdiff"),
        // A band of 23 rows walked across by one warp: rows of 39 points,
        // so that a row's second task ends mid-way.
        &with(&["--ranks", "1", "--batch", "1"]),
    );
}

/// A band walked across by several warps: 64 threads over rows of 39
/// points (two tasks a row) and bands of 7 or 8 rows.
#[test]
fn hdiff_bands_walked_across_by_warps() {
    run(
        None,
        env!("CARGO_BIN_EXE_hdiff"),
        &with(&["--ranks", "3", "--threads", "64"]),
    );
}

/// Bands of one and two rows: a rank's first row is its last, and
/// the halo rows go up and down from the same row.
#[test]
fn hdiff_bands_of_one_and_two_rows() {
    let rows = |ny, ranks| with(&["--ny", ny, "--ranks", ranks]);
    run(None, env!("CARGO_BIN_EXE_hdiff"), &rows("6", "4"));
    // Two ranks: each is the other's neighbour on both sides, once next to
    // it in the process's rows and once across the periodic ends.
    run(None, env!("CARGO_BIN_EXE_hdiff"), &rows("5", "2"));
    run(Some(2), env!("CARGO_BIN_EXE_hdiff"), &rows("7", "3"));
}

#[test]
fn hdiff_spans_two_processes() {
    let text = run(Some(2), env!("CARGO_BIN_EXE_hdiff"), &GRID);
    assert!(text.contains("2 process(es) x 4 ranks"), "{text}");
}

#[test]
fn baselines_alone() {
    run(
        None,
        env!("CARGO_BIN_EXE_hdiff_mpi"),
        &with(&["--ranks", "3", "--chunk", "0"]),
    );
    run(
        None,
        env!("CARGO_BIN_EXE_hdiff_mpi"),
        &with(&["--ranks", "3", "--overlap", "--batch", "8", "--chunk", "5"]),
    );
}

/// The baseline's walk asking for its points' lines ahead (the rank
/// kernel always does): bands of one row and of several, walked by chunks.
#[test]
fn baselines_prefetching() {
    let program = env!("CARGO_BIN_EXE_hdiff_mpi");
    // Both batches that have prefetching kernels (the baseline's default
    // is 2), one and two points ahead.
    for (ahead, batch) in [("1", "1"), ("2", "1"), ("1", "2"), ("2", "2")] {
        let asked = ["--prefetch", ahead, "--batch", batch];
        run(None, program, &with(&asked));
        let bands = ["--ranks", "3", "--chunk", "5"];
        run(None, program, &with(&[&asked[..], &bands[..]].concat()));
    }
}

/// Both programs with the global loads cached where their defaults do not
/// (the emulator has no caches; on a GPU the driver compiles the PTX).
#[test]
fn loads_cached_either_way() {
    run(None, env!("CARGO_BIN_EXE_hdiff"), &with(&["--dlcm", "ca"]));
    let baseline = env!("CARGO_BIN_EXE_hdiff_mpi");
    run(None, baseline, &with(&["--dlcm", "cg", "--ranks", "3"]));
}

#[test]
fn chunk_is_the_baselines_option() {
    let text = run_failing(env!("CARGO_BIN_EXE_hdiff"), &with(&["--chunk", "7"]), 4);
    assert!(text.contains("--chunk 7 is the baseline's"), "{text}");
}

#[test]
fn prefetch_is_the_baselines_option() {
    let text = run_failing(env!("CARGO_BIN_EXE_hdiff"), &with(&["--prefetch", "1"]), 4);
    assert!(text.contains("--prefetch is the baseline's"), "{text}");
    let baseline = env!("CARGO_BIN_EXE_hdiff_mpi");
    let text = run_failing(baseline, &with(&["--prefetch", "1", "--batch", "4"]), 4);
    assert!(text.contains("--prefetch 1 needs --batch 1 or 2"), "{text}");
}

/// Unless told, the rank program caches its loads in L1 too where a rank
/// walks several rows, and in L2 only where it has one (`rank_caching`):
/// the CSV row's last field, checked against the CPU reference.
#[test]
fn loads_cached_by_the_rows_a_rank_walks() {
    let dlcm = |extra: &[&'static str]| {
        let args = with(&[extra, &["--csv", "--check"]].concat());
        let text = app_support::testing::run(None, env!("CARGO_BIN_EXE_hdiff"), &args, 4);
        let row = text.lines().find(|l| l.starts_with("hdiff,")).unwrap_or("");
        assert!(row.contains(",correct,"), "{text}");
        row.rsplit(',').next().unwrap_or("").to_string()
    };
    assert_eq!(dlcm(&["--ranks", "4"]), "ca");
    assert_eq!(dlcm(&["--ny", "4", "--ranks", "4"]), "cg");
    assert_eq!(dlcm(&["--ranks", "4", "--dlcm", "cg"]), "cg");
}

#[test]
fn batch_is_the_baselines_option() {
    let text = run_failing(env!("CARGO_BIN_EXE_hdiff"), &with(&["--batch", "2"]), 4);
    assert!(text.contains("--batch 2 is the baseline's"), "{text}");
}

#[test]
fn baselines_span_two_processes() {
    let text = run(
        Some(2),
        env!("CARGO_BIN_EXE_hdiff_mpi"),
        &with(&["--ranks", "3"]),
    );
    assert!(text.contains("2 process(es) x 3 blocks"), "{text}");
    run(
        Some(2),
        env!("CARGO_BIN_EXE_hdiff_mpi"),
        &with(&["--ranks", "3", "--overlap"]),
    );
}

#[test]
fn too_many_ranks_is_an_error() {
    let text = run_failing(
        env!("CARGO_BIN_EXE_hdiff"),
        &[
            "--nx",
            "8",
            "--ny",
            "4",
            "--nz",
            "1",
            "--threads",
            "32",
            "--ranks",
            "5",
        ],
        8,
    );
    assert!(text.contains("5 ranks for 4 rows"), "{text}");
}

/// Each process a node of its own (`DCUDA_NODE=process`): every byte
/// between the processes through the transport, as between machines.
#[test]
fn hdiff_as_two_nodes() {
    run_checked_as_nodes(2, env!("CARGO_BIN_EXE_hdiff"), &GRID);
}

/// Between processes that map each other's memory (the emulator's IPC, as
/// a node's GPUs): the halos and collectives over the direct route.
#[test]
fn hdiff_over_the_direct_route() {
    run_checked_direct(2, env!("CARGO_BIN_EXE_hdiff"), &GRID);
}
