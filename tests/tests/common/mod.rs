//! What the multi-process tests share: running a program under `mpirun` on
//! the emulator, with a liveness limit.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `program args` under `mpirun -np procs` with `env`; returns
/// whether the job succeeded, and its output. A job that does not end
/// within two minutes has hung: the test fails (after killing it).
pub fn mpirun_outcome(
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
        // A session directory of its own: OpenMPI 4's jobs started at once
        // race to create a shared one under /tmp ("mkdir ... File exists",
        // open-mpi/ompi#8510), and the tests run side by side.
        .env("OMPI_MCA_orte_tmpdir_base", &dir)
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
        if start.elapsed() > Duration::from_secs(120) {
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
        panic!("mpirun -np {procs} {program} {args:?} hung (killed after two minutes):\n{text}");
    };
    (status.success(), text)
}
