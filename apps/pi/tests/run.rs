//! The application and its baseline as a user runs them, at small sizes:
//! alone and under `mpirun -np 2` and `-np 3` (on the emulator unless a GPU
//! is there), each checking π against its error bound.

use app_support::testing::{
    run_checked as run, run_checked_as_nodes, run_checked_direct, run_checked_with_model,
    run_failing, run_failing_with, run_with,
};

/// An interval count that no rank count here divides.
const SMALL: [&str; 6] = ["--size", "100003", "--iters", "2", "--threads", "32"];

#[test]
fn pi_alone_and_on_one_rank() {
    let text = run(None, env!("CARGO_BIN_EXE_pi"), &SMALL);
    assert!(text.contains("1 process(es) x 4 ranks"), "{text}");
    let one: Vec<&str> = SMALL.iter().copied().chain(["--ranks", "1"]).collect();
    run(None, env!("CARGO_BIN_EXE_pi"), &one);
}

#[test]
fn pi_spans_two_and_three_processes() {
    let text = run(Some(2), env!("CARGO_BIN_EXE_pi"), &SMALL);
    assert!(text.contains("2 process(es) x 4 ranks"), "{text}");
    run(Some(3), env!("CARGO_BIN_EXE_pi"), &SMALL);
}

#[test]
fn baseline_alone_and_across_processes() {
    let with: Vec<&str> = SMALL.iter().copied().chain(["--ranks", "3"]).collect();
    run(None, env!("CARGO_BIN_EXE_pi_mpi"), &with);
    let text = run(Some(2), env!("CARGO_BIN_EXE_pi_mpi"), &with);
    assert!(text.contains("2 process(es) x 3 blocks"), "{text}");
    run(Some(3), env!("CARGO_BIN_EXE_pi_mpi"), &with);
}

#[test]
fn bad_options_are_refused() {
    let text = run_failing(env!("CARGO_BIN_EXE_pi"), &["--size", "0"], 4);
    assert!(text.contains("pi: --size must be at least 1"), "{text}");
}

/// Each process a node of its own (`DCUDA_NODE=process`): every byte
/// between the processes through the transport, as between machines.
#[test]
fn pi_as_two_nodes() {
    run_checked_as_nodes(2, env!("CARGO_BIN_EXE_pi"), &SMALL);
}

/// Between processes that map each other's memory (the emulator's IPC, as
/// a node's GPUs): the halos and collectives over the direct route.
#[test]
fn pi_over_the_direct_route() {
    run_checked_direct(2, env!("CARGO_BIN_EXE_pi"), &SMALL);
}

/// Traced with a model of each route: the reduce priced as recursive
/// doubling on each route, printed beside what it took.
#[test]
fn pi_predicts_its_communication() {
    run_checked_with_model(2, "pi", env!("CARGO_BIN_EXE_pi"), &SMALL);
}

#[test]
fn a_model_file_it_cannot_read_is_refused() {
    let dir = std::env::temp_dir().join(format!("dcuda-bad-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("model.csv");
    std::fs::write(
        &bad,
        "route,alpha_us,beta_us_per_byte,max_error\nnvlink,1,0,0\n",
    )
    .unwrap();
    let trace = dir.join("trace.json");
    let env = [
        ("DCUDA_TRACE", trace.to_str().unwrap()),
        ("DCUDA_MODEL", bad.to_str().unwrap()),
    ];
    let text = run_failing_with(env!("CARGO_BIN_EXE_pi"), &SMALL, 4, &env);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        text.contains("model.csv, line 2: route `nvlink` (device, peer or host)"),
        "{text}"
    );
}

/// A model without a trace predicts nothing, and says so.
#[test]
fn a_model_without_a_trace_is_named() {
    let env = [("DCUDA_MODEL", "unread.csv")];
    let text = run_with(None, env!("CARGO_BIN_EXE_pi"), &SMALL, 4, &env);
    assert!(
        text.contains("DCUDA_MODEL=unread.csv is set but this run is not traced"),
        "{text}"
    );
}
