//! The application and its baselines as a user runs them, on small
//! matrices: alone and under `mpirun -np 2` and `-np 3` (on the emulator
//! unless a GPU is there), each checked against the CPU reference (plain
//! products bitwise, power iteration to 1e-9).

use app_support::testing::{
    run_checked as run, run_checked_as_nodes, run_checked_direct, run_checked_with_model,
    run_failing,
};

/// A 23 × 23 Poisson grid (529 rows): no rank count here divides it.
const POISSON: [&str; 6] = ["--size", "23", "--iters", "9", "--threads", "32"];
/// A random banded matrix whose band reaches past a neighbour's rows.
const RANDOM: [&str; 10] = [
    "--matrix",
    "random",
    "--size",
    "701",
    "--band",
    "90",
    "--iters",
    "7",
    "--threads",
    "32",
];

fn with(base: &[&'static str], extra: &[&'static str]) -> Vec<&'static str> {
    base.iter().chain(extra).copied().collect()
}

#[test]
fn products_alone_and_on_one_rank() {
    let text = run(None, env!("CARGO_BIN_EXE_spmv"), &POISSON);
    assert!(text.contains("1 process(es) x 4 ranks"), "{text}");
    run(
        None,
        env!("CARGO_BIN_EXE_spmv"),
        &with(&RANDOM, &["--ranks", "1"]),
    );
    // 17 or 18 rows a rank: the band reaches six ranks each way, twelve
    // neighbours notified and waited for.
    let many = with(&RANDOM, &["--ranks", "40", "--check"]);
    let text = app_support::testing::run(None, env!("CARGO_BIN_EXE_spmv"), &many, 40);
    assert!(
        text.contains("x 40 ranks") && text.contains(", correct"),
        "{text}"
    );
}

#[test]
fn products_span_two_and_three_processes() {
    let text = run(Some(2), env!("CARGO_BIN_EXE_spmv"), &POISSON);
    assert!(text.contains("2 process(es) x 4 ranks"), "{text}");
    run(Some(3), env!("CARGO_BIN_EXE_spmv"), &RANDOM);
}

#[test]
fn power_iteration_converges_across_processes() {
    let power = with(&RANDOM, &["--power", "--iters", "200", "--tol", "1e-6"]);
    let alone = run(None, env!("CARGO_BIN_EXE_spmv"), &power);
    let three = run(Some(3), env!("CARGO_BIN_EXE_spmv"), &power);
    // It stopped before the limit, at the same product everywhere.
    let products = |t: &str| {
        let before = &t[..t.find(" power on").expect("a power iteration's report")];
        before.rsplit(' ').next().unwrap().parse::<u32>().unwrap()
    };
    assert!(products(&alone) < 200, "did not converge:\n{alone}");
    assert_eq!(products(&alone), products(&three), "{alone}\n{three}");
    run(
        Some(2),
        env!("CARGO_BIN_EXE_spmv"),
        &with(&POISSON, &["--power"]),
    );
}

#[test]
fn baselines_alone_and_across_processes() {
    let exe = env!("CARGO_BIN_EXE_spmv_mpi");
    run(None, exe, &with(&POISSON, &["--ranks", "3"]));
    run(None, exe, &with(&RANDOM, &["--ranks", "3", "--overlap"]));
    let text = run(Some(2), exe, &with(&POISSON, &["--ranks", "3"]));
    assert!(text.contains("2 process(es) x 3 blocks"), "{text}");
    run(Some(3), exe, &with(&RANDOM, &["--ranks", "2", "--overlap"]));
    run(
        Some(3),
        exe,
        &with(&RANDOM, &["--ranks", "2", "--power", "--iters", "40"]),
    );
    run(
        Some(2),
        exe,
        &with(&POISSON, &["--ranks", "2", "--power", "--overlap"]),
    );
}

#[test]
fn bad_options_are_refused() {
    let text = run_failing(env!("CARGO_BIN_EXE_spmv"), &["--matrix", "dense"], 4);
    assert!(text.contains("--matrix takes poisson or random"), "{text}");
    let text = run_failing(
        env!("CARGO_BIN_EXE_spmv"),
        &["--size", "3", "--ranks", "16"],
        16,
    );
    assert!(text.contains("16 ranks for 9 rows"), "{text}");
}

/// Between processes that map each other's memory (the emulator's IPC, as
/// a node's GPUs): the vector entries over the direct route.
#[test]
fn products_over_the_direct_route() {
    run_checked_direct(2, env!("CARGO_BIN_EXE_spmv"), &RANDOM);
}

/// Each process a node of its own (`DCUDA_NODE=process`): every byte
/// between the processes through the transport, as between machines.
#[test]
fn spmv_as_two_nodes() {
    run_checked_as_nodes(2, env!("CARGO_BIN_EXE_spmv"), &RANDOM);
}

/// Traced with a model of each route: the power iteration's gets and
/// norms priced, printed beside what they took.
#[test]
fn power_iteration_predicts_its_communication() {
    let power = with(&RANDOM, &["--power", "--iters", "40", "--tol", "1e-6"]);
    run_checked_with_model(2, "spmv", env!("CARGO_BIN_EXE_spmv"), &power);
}
