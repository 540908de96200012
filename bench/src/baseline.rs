//! Running a raw CUDA baseline built on the GPU machine, which prints one
//! line per timed batch ending in its nanoseconds per operation.

use std::path::Path;
use std::process::Command;

/// The per-operation nanoseconds of each batch `program args` printed.
pub fn batch_times(program: &Path, args: &[u64]) -> Result<Vec<f64>, String> {
    let out = Command::new(program)
        .args(args.iter().map(u64::to_string))
        .output()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            l.rsplit(',')
                .next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("baseline printed {l:?}"))
        })
        .collect()
}
