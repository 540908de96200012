//! The application and its baseline, as a user runs them: alone, and under
//! `mpirun -np 2` (on the emulator unless a GPU is there).

fn run(procs: Option<u32>, program: &str) -> String {
    app_support::testing::run(procs, program, &[], 8)
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
