//! `dcuda-info` as a user runs it.

use std::process::Command;

fn info(env: &[(&str, &str)]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_dcuda-info"))
        .env("DCUDA_BACKEND", "emulator")
        .envs(env.iter().copied())
        .output()
        .expect("run dcuda-info");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn prints_every_variable_the_backend_and_the_transports() {
    let (ok, text) = info(&[("DCUDA_WATCHDOG_SECS", "3")]);
    assert!(ok, "{text}");
    for name in [
        "DCUDA_BACKEND",
        "DCUDA_DEVICE",
        "DCUDA_WATCHDOG_SECS",
        "DCUDA_TRANSPORT",
        "DCUDA_PEER_ACCESS",
        "DCUDA_ARCH",
    ] {
        assert!(text.contains(name), "{name} missing:\n{text}");
    }
    assert!(text.contains("DCUDA_WATCHDOG_SECS      = 3"), "{text}");
    assert!(
        text.contains("backend: CPU emulator") && text.contains("chosen by DCUDA_BACKEND"),
        "{text}"
    );
    assert!(text.contains("mpi: "), "{text}");
}

#[test]
fn a_bad_value_is_an_error_naming_the_variable() {
    let (ok, text) = info(&[("DCUDA_EMULATOR_RANKS", "many")]);
    assert!(!ok, "{text}");
    assert!(
        text.contains(
            "DCUDA_EMULATOR_RANKS=\"many\" is not valid; expected a positive number of ranks"
        ),
        "{text}"
    );
}
