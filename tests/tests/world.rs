//! The runtime across processes: `mpirun -np 2` and `-np 4` of the
//! `world_checks` program on the emulator (every
//! route but the direct GPU one, which the GPU run covers). Needs `mpirun`
//! (OpenMPI) on the PATH; `.ci/run` installs it.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `program args` under `mpirun -np procs`; returns its output, or
/// panics with it if the job fails.
fn mpirun(procs: u32, program: &str, args: &[&str]) -> String {
    let (ok, text) = mpirun_outcome(procs, program, args, &[]);
    assert!(ok, "mpirun -np {procs} {program} failed:\n{text}");
    text
}

/// Runs `program args` under `mpirun -np procs` with `env`; returns
/// whether the job succeeded, and its output. A job that does not end
/// within a minute has hung: the test fails (after killing it).
fn mpirun_outcome(
    procs: u32,
    program: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> (bool, String) {
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("dcuda-world-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let (out_path, err_path) = (dir.join("out"), dir.join("err"));
    let mut child = Command::new("mpirun")
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "--bind-to",
            "none",
            "-np",
        ])
        .arg(procs.to_string())
        .arg(program)
        .args(args)
        .env("DCUDA_BACKEND", "emulator")
        .env("DCUDA_EMULATOR_RANKS", "8")
        .env("DCUDA_WATCHDOG_SECS", "60")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("output file"))
        .stderr(std::fs::File::create(&err_path).expect("error file"))
        .spawn()
        .expect("cannot start mpirun: install OpenMPI (openmpi-bin)");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for mpirun") {
            break Some(status);
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = format!(
        "{}{}",
        std::fs::read_to_string(&out_path).unwrap_or_default(),
        std::fs::read_to_string(&err_path).unwrap_or_default()
    );
    let _ = std::fs::remove_dir_all(&dir);
    let Some(status) = status else {
        panic!("mpirun -np {procs} {program} {args:?} hung (killed after a minute):\n{text}");
    };
    (status.success(), text)
}

fn world_checks(procs: u32) {
    let text = mpirun(procs, env!("CARGO_BIN_EXE_world_checks"), &[]);
    for p in 0..procs {
        assert!(
            text.contains(&format!("world_checks: process {p} of {procs} ok")),
            "process {p} did not pass:\n{text}"
        );
    }
}

#[test]
fn two_processes_put_notify_get_and_barrier() {
    world_checks(2);
}

#[test]
fn four_processes_put_notify_get_and_barrier() {
    world_checks(4);
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
        assert!(
            text.contains(
                "process 1 left the job while process 0 waited for it in a setup exchange"
            ),
            "-np {procs}: process 0 must say who it waited for:\n{text}"
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
