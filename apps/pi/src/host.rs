//! What the programs share on the host: options, the check against π and
//! the report. Not part of the PTX build.

use app_support::args::{check_max_registers, check_threads, Args};
use app_support::report::Run;
use std::format;
use std::string::{String, ToString};

/// The programs' options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Intervals of the integration (`--size`; default 2³⁰).
    pub intervals: u64,
    /// Integrations, each timed together (`--iters`; default 10).
    pub iters: u32,
    /// Threads per rank or block (`--threads`, a power of two ≤ 1024;
    /// default 1024: the fastest of 256, 512 and 1024 for both programs on
    /// an H100).
    pub threads: u32,
    /// Ranks (dcuda) or blocks (baseline) per GPU (`--ranks`); `None`: as
    /// many as fit at once.
    pub units: Option<u32>,
    /// The most registers a thread of the dcuda program may use
    /// (`--max-registers`; default 64: one rank of 1024 threads an SM, the
    /// fastest of 32 to 128 on an H100).
    pub max_registers: u32,
    /// Print a CSV header and row instead of a sentence (`--csv`).
    pub csv: bool,
    /// Compare π with its error bound (`--check`; on unless `--no-check`).
    pub check: bool,
}

const USAGE: &str = "options: --size INTERVALS, --iters N, --threads N, --ranks N, --max-registers N, --csv, --check | --no-check";

impl Options {
    /// Parses the command line.
    pub fn parse() -> Result<Options, String> {
        Self::from_args(std::env::args().skip(1))
    }

    /// Parses `args` (without the program's name).
    pub fn from_args(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
        let mut o = Options {
            intervals: 1 << 30,
            iters: 10,
            threads: 1024,
            units: None,
            max_registers: 64,
            csv: false,
            check: true,
        };
        let mut args = Args::new(args, USAGE);
        while let Some(arg) = args.next_flag() {
            let mut number = |name: &str| args.number(name);
            match arg.as_str() {
                "--size" => o.intervals = number("--size")? as u64,
                "--iters" => o.iters = number("--iters")?,
                "--threads" => o.threads = number("--threads")?,
                "--ranks" => o.units = Some(number("--ranks")?),
                "--max-registers" => o.max_registers = number("--max-registers")?,
                "--csv" => o.csv = true,
                "--check" => o.check = true,
                "--no-check" => o.check = false,
                other => return Err(args.unknown(other)),
            }
        }
        if o.intervals == 0 {
            return Err("--size must be at least 1 interval".into());
        }
        if o.iters == 0 {
            return Err("--iters must be at least 1".into());
        }
        check_threads(o.threads)?;
        check_max_registers(o.max_registers)?;
        if o.units == Some(0) {
            return Err("--ranks must be at least 1".into());
        }
        Ok(o)
    }

    /// How the dcuda program loads its module.
    pub fn load_options(&self) -> dcuda::LoadOptions {
        dcuda::LoadOptions::default().max_registers(self.max_registers)
    }
}

/// The most the computed π may differ from π with `n` intervals: the
/// midpoint rule's error bound h² max|f''| / 24 = h² / 3 (f = 4/(1+x²),
/// |f''| ≤ 8 on [0, 1], h = 1/n), plus the worst case of rounding in a sum
/// of n terms below 4, scaled by h: 4 n ε.
pub fn error_bound(n: u64) -> f64 {
    let h = 1.0 / n as f64;
    h * h / 3.0 + 4.0 * n as f64 * f64::EPSILON
}

/// Whether `pi` is within [`error_bound`] of π.
pub fn check(pi: f64, n: u64) -> Result<(), String> {
    let (error, bound) = ((pi - std::f64::consts::PI).abs(), error_bound(n));
    if error <= bound {
        Ok(())
    } else {
        Err(format!(
            "pi = {pi:.15} with {n} intervals is {error:e} from π, more than the bound {bound:e}"
        ))
    }
}

/// One measured run, as printed.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// What every program reports: program, backend, processes,
    /// units, seconds, check.
    pub run: Run,
    /// The options it ran with.
    pub options: Options,
    /// The computed π.
    pub pi: f64,
}

impl Outcome {
    /// The outcome as the programs print it: a sentence, or a CSV header
    /// and row (with `--csv`).
    pub fn render(&self) -> Result<String, String> {
        let o = &self.options;
        let error = (self.pi - std::f64::consts::PI).abs();
        if o.csv {
            self.run.csv_row(&[
                ("threads", o.threads.to_string()),
                ("intervals", o.intervals.to_string()),
                ("iters", o.iters.to_string()),
                ("seconds", format!("{:.6}", self.run.seconds)),
                ("pi", format!("{:.15}", self.pi)),
                ("error", format!("{error:e}")),
                ("check", self.run.checked.clone()),
            ])
        } else {
            Ok(format!(
                "{}: {} intervals, {} integrations on {} process(es) x {} {} of {} threads ({}): {:.4} s, {:.3} ms per integration, pi {:.15} (error {error:e}), {}\n",
                self.run.program,
                o.intervals,
                o.iters,
                self.run.processes,
                self.run.units,
                self.run.unit,
                o.threads,
                self.run.backend,
                self.run.seconds,
                1e3 * self.run.seconds / o.iters as f64,
                self.pi,
                self.run.checked
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compute::{midpoint_sum, split};

    fn options(args: &[&str]) -> Result<Options, String> {
        Options::from_args(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn the_split_sum_is_within_the_bound_and_a_wrong_pi_is_not() {
        let n = 1000u64;
        // Three parts of 32 threads each, as ranks would take them.
        let sum: f64 = (0..3)
            .flat_map(|p| (0..32).map(move |t| midpoint_sum(split(n, 3, p), n, (t, 32))))
            .sum();
        let pi = sum / n as f64;
        assert_eq!(check(pi, n), Ok(()));
        let err = check(pi + 2.0 * error_bound(n), n).unwrap_err();
        assert!(err.contains("more than the bound"), "{err}");
        assert_eq!(split(10, 3, 0), (0, 3));
        assert_eq!(split(10, 3, 2), (6, 10));
    }

    #[test]
    fn bad_options_are_named() {
        assert!(options(&["--size", "0"]).unwrap_err().contains("--size"));
        assert!(options(&["--iters", "0"]).unwrap_err().contains("--iters"));
        assert!(options(&["--threads", "48"])
            .unwrap_err()
            .contains("power of two"));
        assert!(options(&["--x"])
            .unwrap_err()
            .contains("unknown option `--x`"));
        assert_eq!(options(&["--size", "77"]).unwrap().intervals, 77);
    }
}
