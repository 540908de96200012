//! The runtime across processes: `mpirun -np 2` and `-np 4` of the
//! `world_checks` program on the emulator (every
//! route but the direct GPU one, which the GPU run covers). Needs `mpirun`
//! (OpenMPI) on the PATH; `.ci/run` installs it.

use std::process::Command;

/// Runs `program args` under `mpirun -np procs`; returns its output, or
/// panics with it if the job fails.
fn mpirun(procs: u32, program: &str, args: &[&str]) -> String {
    let out = Command::new("mpirun")
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
        .output()
        .expect("cannot start mpirun: install OpenMPI (openmpi-bin)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "mpirun -np {procs} {program} failed:\n{text}"
    );
    text
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
    let text = mpirun(procs, env!("CARGO_BIN_EXE_world_checks"), &["abort"]);
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
