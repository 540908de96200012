//! The runtime across processes: `mpirun -np 1` to `-np 4` of the
//! `world_checks` program on the emulator, over the host route, as
//! separate nodes, and over the direct route between processes that map
//! each other's memory (`DCUDA_EMULATOR_IPC=1`, as a node's GPUs through
//! CUDA IPC). Needs `mpirun` (OpenMPI) on the PATH; `.ci/run` installs it.

mod common;

use common::mpirun_outcome;

/// Runs `world_checks` under `mpirun -np procs` with `env` set in every
/// process, and checks that every process passed.
fn world_checks_with(procs: u32, env: &[(&str, &str)]) {
    let program = env!("CARGO_BIN_EXE_world_checks");
    let (ok, text) = mpirun_outcome(procs, program, &[], env);
    assert!(
        ok,
        "mpirun -np {procs} world_checks {env:?} failed:\n{text}"
    );
    for p in 0..procs {
        assert!(
            text.contains(&format!("world_checks: process {p} of {procs} ok")),
            "process {p} did not pass ({env:?}):\n{text}"
        );
    }
}

fn world_checks(procs: u32) {
    world_checks_with(procs, &[]);
}

// Each runs notified access, barriers, host services, and allreduce and
// broadcast over the world and the device communicators.
#[test]
fn one_process_put_notify_get_barrier_and_collectives() {
    world_checks(1);
}

#[test]
fn two_processes_put_notify_get_barrier_and_collectives() {
    world_checks(2);
}

#[test]
fn three_processes_put_notify_get_barrier_and_collectives() {
    world_checks(3);
}

#[test]
fn four_processes_put_notify_get_barrier_and_collectives() {
    world_checks(4);
}

/// Every process a node of its own (`DCUDA_NODE=process`): the whole
/// suite again, with node communicators of one process each and every byte
/// between processes through the transport, as between machines.
/// `DCUDA_TRANSPORT=nvshmem` on the emulator: NVSHMEM needs a GPU, so
/// the job says so and the window accesses go through the hosts (the
/// GPU half of this check is `scripts/gpu-nvshmem.sh`).
#[test]
fn nvshmem_on_the_emulator_says_so_and_goes_through_the_hosts() {
    let program = env!("CARGO_BIN_EXE_world_checks");
    let env = [("DCUDA_TRANSPORT", "nvshmem"), ("DCUDA_NODE", "process")];
    let (ok, text) = mpirun_outcome(2, program, &["nvshmem"], &env);
    assert!(ok, "world_checks nvshmem failed:\n{text}");
    assert!(
        text.contains("DCUDA_TRANSPORT=nvshmem needs a GPU"),
        "no word of the fallback:\n{text}"
    );
    for p in 0..2 {
        let line = format!("process {p}: window accesses between processes through the hosts");
        assert!(text.contains(&line), "{line}:\n{text}");
    }
}

fn world_checks_as_nodes(procs: u32) {
    world_checks_with(procs, &[("DCUDA_NODE", "process")]);
}

#[test]
fn two_processes_as_two_nodes() {
    world_checks_as_nodes(2);
}

#[test]
fn three_processes_as_three_nodes() {
    world_checks_as_nodes(3);
}

/// The leaders' dissemination barrier (taken on GPUs that map each other),
/// forced here over the hosts' route, at an odd process count.
#[test]
fn three_processes_with_the_leaders_barrier() {
    world_checks_with(3, &[("DCUDA_WORLD_BARRIER", "leaders")]);
}

/// Emulator processes mapping each other's memory: the direct route
/// between every pair (windows, notifications, collectives' leaders), as
/// between the GPUs of a node; the setup's debug line names the routes.
fn world_checks_direct(procs: u32) {
    let env = [
        ("DCUDA_EMULATOR_IPC", "1"),
        ("DCUDA_LOG", "debug"),
        ("WORLD_CHECKS_DIRECT", "1"),
    ];
    let (ok, text) = mpirun_outcome(procs, env!("CARGO_BIN_EXE_world_checks"), &[], &env);
    assert!(
        ok,
        "mpirun -np {procs} world_checks {env:?} failed:\n{text}"
    );
    for p in 0..procs {
        let others: Vec<u32> = (0..procs).filter(|&q| q != p).collect();
        let direct = format!("process {p}: the direct route to processes {others:?}");
        assert!(text.contains(&direct), "no `{direct}`:\n{text}");
        // Long messages stay in the sender's GPU memory until received.
        let mapped = "copied a message of 24000 bytes out of process";
        assert!(text.contains(mapped), "no `{mapped}`:\n{text}");
        assert!(
            text.contains(&format!("world_checks: process {p} of {procs} ok")),
            "process {p} did not pass over the direct route:\n{text}"
        );
    }
}

#[test]
fn two_processes_over_the_direct_route() {
    world_checks_direct(2);
}

#[test]
fn four_processes_over_the_direct_route() {
    world_checks_direct(4);
}

#[test]
fn a_failing_process_over_the_direct_route_stops_the_job() {
    let env = [("DCUDA_EMULATOR_IPC", "1")];
    let (ok, text) = mpirun_outcome(2, env!("CARGO_BIN_EXE_world_checks"), &["abort"], &env);
    assert!(!ok, "a failed job must exit non-zero:\n{text}");
    assert!(
        text.contains("process 1 reports process 0's failure"),
        "{text}"
    );
}

#[test]
fn a_failing_process_stops_the_whole_job_with_its_message() {
    let procs = 3;
    let (ok, text) = mpirun_outcome(procs, env!("CARGO_BIN_EXE_world_checks"), &["abort"], &[]);
    assert!(!ok, "a failed job must exit non-zero:\n{text}");
    assert!(
        text.contains("process 0 reports its rank's error"),
        "{text}"
    );
    for p in 1..procs {
        assert!(
            text.contains(&format!("process {p} reports process 0's failure")),
            "process {p} did not report the failure:\n{text}"
        );
    }
}

#[test]
fn a_process_failing_before_setup_ends_the_job() {
    for procs in [2, 3] {
        let (ok, text) = mpirun_outcome(
            procs,
            env!("CARGO_BIN_EXE_world_checks"),
            &["fail-before-setup"],
            &[],
        );
        assert!(!ok, "-np {procs}: a failed job must exit non-zero:\n{text}");
        assert!(
            text.contains("world_checks: process 1 fails before setup"),
            "{text}"
        );
        // Whichever process notices first says so; mpirun may stop the
        // others before they print (seen with three under load).
        let named = (0..procs).filter(|&p| p != 1).any(|p| {
            text.contains(&format!(
                "process 1 left the job while process {p} waited for it in a setup exchange"
            ))
        });
        assert!(
            named,
            "-np {procs}: a process must say whom it waited for:\n{text}"
        );
    }
}

#[test]
fn a_rank_error_reaches_ranks_waiting_on_it_at_once() {
    // With the watchdog off, only the failing process's word ends the
    // others' waits.
    let procs = 2;
    let env = [("DCUDA_WATCHDOG_SECS", "0")];
    let (ok, text) = mpirun_outcome(
        procs,
        env!("CARGO_BIN_EXE_world_checks"),
        &["wait-on-failed"],
        &env,
    );
    assert!(!ok, "a failed job must exit non-zero:\n{text}");
    assert!(
        text.contains("process 0 reports its rank's error"),
        "{text}"
    );
    assert!(
        text.contains("process 1 reports process 0's failure")
            && text.contains("notify: target rank 10 is out of range"),
        "{text}"
    );
}

#[test]
fn a_stopped_process_ends_the_job_through_the_watchdog() {
    let env = [("DCUDA_WATCHDOG_SECS", "2")];
    let (ok, text) = mpirun_outcome(2, env!("CARGO_BIN_EXE_world_checks"), &["stop-peer"], &env);
    assert!(!ok, "a failed job must exit non-zero:\n{text}");
    assert!(text.contains("process 0 reports the watchdog"), "{text}");
    assert!(text.contains("aborts the job after a failure"), "{text}");
}

#[test]
fn a_panicking_rank_ends_the_job_with_its_fault() {
    let (ok, text) = mpirun_outcome(2, env!("CARGO_BIN_EXE_world_checks"), &["panic"], &[]);
    assert!(!ok, "a failed job must exit non-zero:\n{text}");
    assert!(
        text.contains("process 1 reports the fault") && text.contains("rank 2 gives up"),
        "{text}"
    );
    assert!(text.contains("aborts the job after a failure"), "{text}");
}
