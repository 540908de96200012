//! The application and its baselines as a user runs them, on small boxes:
//! alone and under `mpirun -np 2` and `-np 3` (on the emulator unless a
//! GPU is there), each checked against the CPU reference (the particle
//! count and every id exactly, every particle's final state and the
//! energies to stated tolerances), and the errors a user can cause.

use app_support::testing::{
    run_checked as run, run_checked_as_nodes, run_checked_direct, run_checked_with_model,
    run_failing,
};

/// 2000 particles in a box of side 31.6: slabs of 2.6 to 31.6.
const SMALL: [&str; 8] = [
    "--size",
    "2000",
    "--iters",
    "30",
    "--threads",
    "32",
    "--every",
    "7",
];

fn with(base: &[&'static str], extra: &[&'static str]) -> Vec<&'static str> {
    base.iter().chain(extra).copied().collect()
}

#[test]
fn particles_alone_and_on_one_rank() {
    let text = run(None, env!("CARGO_BIN_EXE_particles"), &SMALL);
    assert!(text.contains("1 process(es) x 4 ranks"), "{text}");
    // One rank is its own neighbour on both sides.
    run(
        None,
        env!("CARGO_BIN_EXE_particles"),
        &with(&SMALL, &["--ranks", "1"]),
    );
}

#[test]
fn particles_move_between_processes() {
    let text = run(Some(2), env!("CARGO_BIN_EXE_particles"), &SMALL);
    assert!(text.contains("2 process(es) x 4 ranks"), "{text}");
    run(
        Some(3),
        env!("CARGO_BIN_EXE_particles"),
        &with(&SMALL, &["--ranks", "3"]),
    );
}

#[test]
fn baselines_alone_and_across_processes() {
    let exe = env!("CARGO_BIN_EXE_particles_mpi");
    run(None, exe, &with(&SMALL, &["--ranks", "3"]));
    run(None, exe, &with(&SMALL, &["--ranks", "1"]));
    let text = run(Some(2), exe, &with(&SMALL, &["--ranks", "2"]));
    assert!(text.contains("2 process(es) x 2 blocks"), "{text}");
    run(Some(2), exe, &with(&SMALL, &["--ranks", "1", "--overlap"]));
    run(Some(3), exe, &with(&SMALL, &["--ranks", "2", "--overlap"]));
}

#[test]
fn errors_name_what_to_change() {
    // Particles that jump past a neighbour's slab end the run with the
    // rank kernel's abort code, explained.
    let exe = env!("CARGO_BIN_EXE_particles");
    let text = run_failing(exe, &with(&SMALL, &["--dt", "3"]), 8);
    assert!(text.contains("aborted the run with code 3"), "{text}");
    assert!(
        text.contains("moved past a neighbour's slab in one step (step 1)"),
        "{text}"
    );
    let text = run_failing(
        env!("CARGO_BIN_EXE_particles_mpi"),
        &with(&SMALL, &["--dt", "3", "--ranks", "8"]),
        8,
    );
    assert!(
        text.contains("moved past a neighbour's slab in one step (step 1)"),
        "{text}"
    );
    // Slabs narrower than the cutoff, and bad options.
    let text = run_failing(
        exe,
        &["--size", "300", "--threads", "32", "--ranks", "13"],
        16,
    );
    assert!(
        text.contains("narrower than the cutoff (1): pass fewer --ranks"),
        "{text}"
    );
    let text = run_failing(exe, &["--slack", "0.5"], 4);
    assert!(text.contains("--slack must be at least 1"), "{text}");
}

/// Between processes that map each other's memory (the emulator's IPC, as
/// a node's GPUs): the messages and halos over the direct route.
#[test]
fn particles_move_over_the_direct_route() {
    run_checked_direct(2, env!("CARGO_BIN_EXE_particles"), &SMALL);
}

/// Each process a node of its own (`DCUDA_NODE=process`): every byte
/// between the processes through the transport, as between machines.
#[test]
fn particles_as_two_nodes() {
    run_checked_as_nodes(2, env!("CARGO_BIN_EXE_particles"), &SMALL);
}

/// Traced with a model of each route: the moving particles' and halos'
/// notified puts and the energy reductions priced, printed beside what
/// they took.
#[test]
fn particles_predict_their_communication() {
    run_checked_with_model(2, "particles", env!("CARGO_BIN_EXE_particles"), &SMALL);
}

/// A box twice as wide as high (`--aspect 2`), as the weak-scaling runs
/// use it: the slabs keep their shape as the particles double.
#[test]
fn a_wide_box_moves_particles_between_processes() {
    let wide = with(&SMALL, &["--aspect", "2"]);
    run(Some(2), env!("CARGO_BIN_EXE_particles"), &wide);
    run(
        Some(2),
        env!("CARGO_BIN_EXE_particles_mpi"),
        &with(&wide, &["--ranks", "3"]),
    );
}
