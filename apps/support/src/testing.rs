//! Runs an application's program as a user does, alone or under
//! `mpirun -np N` (on the emulator unless a GPU is there), and checks that
//! it succeeded and verified its result against its CPU reference.

use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// Runs `program args` alone (`procs` `None`) or under `mpirun -np N`,
/// the emulator at `emulator_ranks` ranks of 256 threads a process; panics
/// with the output unless it succeeded. Returns standard output and error.
pub fn run(procs: Option<u32>, program: &str, args: &[&str], emulator_ranks: u32) -> String {
    run_with(procs, program, args, emulator_ranks, &[])
}

/// [`run`] with `env` set in every process.
pub fn run_with(
    procs: Option<u32>,
    program: &str,
    args: &[&str],
    emulator_ranks: u32,
    env: &[(&str, &str)],
) -> String {
    // A session directory of its own for every job: OpenMPI 4's jobs
    // started at once race to create a shared one under /tmp ("mkdir ...
    // File exists", open-mpi/ompi#8510), and the tests run side by side.
    static CALLS: AtomicU32 = AtomicU32::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let session = std::env::temp_dir().join(format!("dcuda-app-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&session).expect("a temporary directory");
    let mut cmd = match procs {
        None => Command::new(program),
        Some(n) => {
            let mut c = Command::new("mpirun");
            c.env("OMPI_MCA_orte_tmpdir_base", &session);
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
        .env("DCUDA_EMULATOR_RANKS", emulator_ranks.to_string())
        .env("DCUDA_EMULATOR_THREADS", "256")
        .envs(env.iter().copied())
        .output()
        .expect("cannot start the program (mpirun needs OpenMPI's openmpi-bin)");
    let _ = std::fs::remove_dir_all(&session);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{program} {args:?} failed:\n{text}");
    text
}

/// [`run`] with `--check` and 4 emulator ranks; panics unless the program
/// printed `, correct` (it verified its result against its reference).
pub fn run_checked(procs: Option<u32>, program: &str, args: &[&str]) -> String {
    let with_check: Vec<&str> = args.iter().copied().chain(["--check"]).collect();
    let text = run(procs, program, &with_check, 4);
    assert!(
        text.contains(", correct"),
        "{program} {args:?} did not check:\n{text}"
    );
    text
}

/// [`run_checked`] under `mpirun -np procs` with the emulator's processes
/// mapping each other's memory (`DCUDA_EMULATOR_IPC=1`): the direct route
/// between processes, as between the GPUs of a node.
pub fn run_checked_direct(procs: u32, program: &str, args: &[&str]) -> String {
    let with_check: Vec<&str> = args.iter().copied().chain(["--check"]).collect();
    let env = [("DCUDA_EMULATOR_IPC", "1"), ("DCUDA_LOG", "debug")];
    let text = run_with(Some(procs), program, &with_check, 4, &env);
    assert!(
        text.contains(", correct") && text.contains("process 0: the direct route to processes [1"),
        "{program} {args:?} did not check over the direct route:\n{text}"
    );
    text
}

/// [`run_checked`] under `mpirun -np procs` with every process a node of
/// its own (`DCUDA_NODE=process`): every byte between the processes over
/// the transport, as between machines.
pub fn run_checked_as_nodes(procs: u32, program: &str, args: &[&str]) -> String {
    let with_check: Vec<&str> = args.iter().copied().chain(["--check"]).collect();
    let env = [("DCUDA_NODE", "process")];
    let text = run_with(Some(procs), program, &with_check, 4, &env);
    let last = format!("(node {} of {procs};", procs - 1);
    assert!(
        text.contains(", correct") && text.contains(&last),
        "{program} {args:?} did not check as {procs} nodes:\n{text}"
    );
    text
}

/// [`run_checked`] under `mpirun -np procs`, traced with a model of every
/// route (`DCUDA_TRACE`, `DCUDA_MODEL` in a folder of the system's
/// temporary one named after `name`); panics unless the run printed its
/// communication predicted beside measured, every call priced.
pub fn run_checked_with_model(procs: u32, name: &str, program: &str, args: &[&str]) -> String {
    let dir = std::env::temp_dir().join(format!("dcuda-model-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let model = dir.join("model.csv");
    let routes = "route,alpha_us,beta_us_per_byte,max_error\ndevice,1.4,2e-5,0.05\npeer,3.0,3e-6,0.05\nhost,14.6,4e-4,0.1\n";
    std::fs::write(&model, routes).expect("a model file");
    let trace = dir.join("trace.json");
    let with_check: Vec<&str> = args.iter().copied().chain(["--check"]).collect();
    let env = [
        ("DCUDA_TRACE", trace.to_str().expect("a UTF-8 path")),
        ("DCUDA_MODEL", model.to_str().expect("a UTF-8 path")),
    ];
    let text = run_with(Some(procs), program, &with_check, 4, &env);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        text.contains(", correct")
            && text.contains("us by the model, measured")
            && text.contains("; 0 calls without a model (route between processes: "),
        "{program} {args:?} did not print its communication predicted beside measured:\n{text}"
    );
    text
}

/// Runs `program args` alone and returns its standard error, asserting
/// that it failed.
pub fn run_failing(program: &str, args: &[&str], emulator_ranks: u32) -> String {
    run_failing_with(program, args, emulator_ranks, &[])
}

/// [`run_failing`] with `env` set.
pub fn run_failing_with(
    program: &str,
    args: &[&str],
    emulator_ranks: u32,
    env: &[(&str, &str)],
) -> String {
    let out = Command::new(program)
        .args(args)
        .env("DCUDA_EMULATOR_RANKS", emulator_ranks.to_string())
        .envs(env.iter().copied())
        .output()
        .expect("cannot start the program");
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !out.status.success(),
        "{program} {args:?} succeeded:\n{text}"
    );
    text
}
