//! The emulator as a divergence detector: rank kernels whose threads
//! disagree in ways no compiler check sees are stopped with a report that
//! names the threads, the calls and the source lines. These kernels are
//! undefined behaviour on a GPU, so they always run on the emulator.

use dcuda::{BackendChoice, Error, RunConfig, Runtime};
use dcuda_rank_kernels::divergence::{DivergeArgs, DIVERGE, LEGAL_PATTERNS};

/// Runs case `case` on 2 ranks of 32 threads; the launch's error text.
fn run(case: u32) -> Result<Vec<u32>, String> {
    let rt = Runtime::builder()
        .backend(BackendChoice::Emulator)
        .quiet()
        .build()
        .unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    let out = rt.alloc::<u32>(2).unwrap();
    let args = DivergeArgs {
        case,
        out: out.slice(),
    };
    // SAFETY: out has one element per rank.
    match unsafe { module.run(&DIVERGE, &RunConfig::new(32).ranks(2), &args) } {
        Ok(_) => Ok(out.download().unwrap()),
        Err(e @ Error::KernelFault { .. }) => Err(e.to_string()),
        Err(other) => panic!("case {case}: expected a kernel failure, got {other:?}"),
    }
}

fn report(case: u32) -> String {
    let msg = run(case).expect_err("the emulator let a divergent rank through");
    println!("case {case}: {msg}");
    msg
}

#[test]
fn shared_memory_read_without_a_barrier_is_reported() {
    let msg = report(0);
    assert!(msg.contains("the threads of this rank diverged"), "{msg}");
    assert!(
        msg.contains("threads 0-30 returned")
            && msg.contains(
                "thread 31 reached `barrier(comm 0)` at kernels-ptx/ranks/src/divergence.rs:"
            ),
        "{msg}"
    );
}

#[test]
fn a_per_thread_collective_argument_is_reported() {
    let msg = report(1);
    assert!(msg.contains("the threads of this rank diverged"), "{msg}");
    // Even threads pass tag 0, odd threads tag 1.
    assert!(msg.contains("threads 0, 2, 4,"), "{msg}");
    assert!(msg.contains("tag 0)`") && msg.contains("tag 1)`"), "{msg}");
    assert!(msg.contains("`notify(comm 0, target "), "{msg}");
}

#[test]
fn a_per_thread_split_color_is_reported() {
    let msg = report(6);
    assert!(msg.contains("the threads of this rank diverged"), "{msg}");
    assert!(
        msg.contains("`comm_split(comm 0, color 0, key 0)`"),
        "{msg}"
    );
    assert!(
        msg.contains("`comm_split(comm 0, color 1, key 0)`"),
        "{msg}"
    );
}

#[test]
fn a_per_thread_target_list_is_reported() {
    let msg = report(7);
    assert!(msg.contains("the threads of this rank diverged"), "{msg}");
    // Both lists hold two targets; they differ in the second.
    assert!(msg.contains("threads 0, 2, 4,"), "{msg}");
    assert!(
        msg.contains("`notify_each(comm 0, targets 2, list "),
        "{msg}"
    );
}

#[test]
fn an_atomic_steering_uniform_code_is_reported() {
    let msg = report(2);
    assert!(msg.contains("the threads of this rank diverged"), "{msg}");
    assert!(msg.contains("reached `sync_threads()` at"), "{msg}");
    assert!(msg.contains("returned"), "{msg}");
}

#[test]
fn threads_that_exit_are_reported_not_dropped() {
    let msg = report(3);
    assert!(
        msg.contains("threads 16-31 exited at kernels-ptx/ranks/src/divergence.rs:"),
        "{msg}"
    );
    assert!(msg.contains("threads 0-15 "), "{msg}");
}

#[test]
fn a_per_thread_clock_in_uniform_code_is_refused() {
    let msg = report(4);
    assert!(
        msg.contains("`global_timer` called in uniform code of a rank kernel")
            && msg.contains("rank.timestamp()"),
        "{msg}"
    );
}

#[test]
fn a_time_out_on_the_uniform_clock_runs() {
    let polls = run(5).unwrap();
    assert!(polls.iter().all(|&p| p >= 1), "{polls:?}");
}

/// Legal code that looks like a rule break runs to its end, on the GPU
/// when there is one.
#[test]
fn legal_patterns_compile_and_run() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    let out = rt.alloc::<u32>(3).unwrap();
    let args = DivergeArgs {
        case: 0,
        out: out.slice(),
    };
    // SAFETY: out has one element per rank.
    unsafe { module.run(&LEGAL_PATTERNS, &RunConfig::new(64).ranks(3), &args) }.unwrap();
    assert_eq!(out.download().unwrap(), [1, 1, 1]);
}
