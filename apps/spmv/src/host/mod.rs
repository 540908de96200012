//! What the programs share on the host: options, the matrices and the CPU
//! reference (`matrix`), and the report. Not part of the PTX build.

mod matrix;

pub use matrix::{check, reference, HostCsr, Kind, Matrix};

use app_support::args::{check_max_registers, check_threads, Args};
use app_support::report::Run;
use std::format;
use std::string::{String, ToString};

/// The programs' options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Poisson: the grid's side (`n = size²`); random: `n` (`--size`;
    /// default 2048, and 4 Mi rows for the random matrix).
    pub size: u32,
    /// Which matrix (`--matrix poisson|random`; default Poisson).
    pub matrix: Kind,
    /// The random matrix's bandwidth (`--band`; default 1024).
    pub band: u32,
    /// The random matrix's entries a row (`--per-row`; default 8).
    pub per_row: u32,
    /// Products at most (`--iters`; default 100).
    pub iters: u32,
    /// Power iteration (`--power`): each product scaled by the inverse of
    /// the last one's norm, until it settles to `tol`.
    pub power: bool,
    /// Power iteration ends when the norm changes by at most this much of
    /// itself (`--tol`; default 1e-10).
    pub tol: f64,
    /// Threads per rank or block (`--threads`). Default: the fastest of
    /// each program on one H200 (`bench/results/2026-11-27-apart-h200x2/`):
    /// the baseline's blocks 1024 for every matrix; the dcuda program's
    /// ranks 1024 for plain products and 512 for power iteration, whose
    /// allreduce every product the runtime's calls make slower at 64
    /// registers (1 -> 2 GPUs at twice the rows: 86% efficient at 1024
    /// threads, 95% at 512).
    pub threads: u32,
    /// Ranks (dcuda) or blocks (baseline) per GPU (`--ranks`); `None`: as
    /// many as fit at once.
    pub units: Option<u32>,
    /// The most registers a thread of the dcuda program may use
    /// (`--max-registers`). Default: as many as let one rank fill an SM's
    /// registers, at most 128 (64 at 1024 threads). At 64 the runtime's
    /// calls spill: a small Poisson product took 37 µs instead of 9 on an
    /// H100; a large one is faster at 1024 threads and 64 registers than
    /// at 512 and 128, now that the row loop is out of line.
    pub max_registers: u32,
    /// The baseline overlaps the exchange with the interior rows
    /// (`--overlap`).
    pub overlap: bool,
    /// Print a CSV header and row instead of a sentence (`--csv`).
    pub csv: bool,
    /// Compare with the CPU reference (`--check`, `--no-check`); by
    /// default when it takes the CPU seconds at most.
    pub check: bool,
}

const USAGE: &str = "options: --size N, --matrix poisson|random, --band N, --per-row N, --iters N, --power, --tol X, --threads N, --ranks N, --max-registers N, --overlap, --csv, --check | --no-check";

/// What a program runs with unless told otherwise (as the other
/// applications' `Defaults`).
#[derive(Clone, Copy, Debug)]
pub struct Defaults {
    /// Threads per rank or block for plain products.
    pub threads: u32,
    /// Threads per rank or block for power iteration.
    pub power_threads: u32,
}

impl Defaults {
    /// The dcuda program's: ranks of 1024 threads for plain products, 512
    /// for power iteration (see [`Options::threads`]).
    pub const RANKS: Defaults = Defaults {
        threads: 1024,
        power_threads: 512,
    };
    /// The baseline's: blocks of 1024 threads for both.
    pub const BLOCKS: Defaults = Defaults {
        threads: 1024,
        power_threads: 1024,
    };
}

impl Options {
    /// Parses the command line with a program's `defaults`.
    pub fn parse(defaults: Defaults) -> Result<Options, String> {
        Self::from_args(std::env::args().skip(1), defaults)
    }

    /// Parses `args` (without the program's name) with `defaults`.
    pub fn from_args(
        args: impl IntoIterator<Item = String>,
        defaults: Defaults,
    ) -> Result<Options, String> {
        let mut o = Options {
            size: 0,
            matrix: Kind::Poisson,
            band: 1024,
            per_row: 8,
            iters: 100,
            power: false,
            tol: 1e-10,
            threads: 0,
            units: None,
            max_registers: 0,
            overlap: false,
            csv: false,
            check: false,
        };
        let mut check = None;
        let mut args = Args::new(args, USAGE);
        while let Some(arg) = args.next_flag() {
            match arg.as_str() {
                "--size" => o.size = args.number("--size")?,
                "--matrix" => {
                    o.matrix = match args.next_flag().as_deref() {
                        Some("poisson") => Kind::Poisson,
                        Some("random") => Kind::Random,
                        other => {
                            return Err(format!(
                                "--matrix takes poisson or random, got {other:?}; {USAGE}"
                            ))
                        }
                    }
                }
                "--band" => o.band = args.number("--band")?,
                "--per-row" => o.per_row = args.number("--per-row")?,
                "--iters" => o.iters = args.number("--iters")?,
                "--power" => o.power = true,
                "--tol" => {
                    let v = args.next_flag().unwrap_or_default();
                    o.tol = v
                        .parse()
                        .map_err(|_| format!("--tol: `{v}` is not a number; {USAGE}"))?;
                }
                "--threads" => o.threads = args.number("--threads")?,
                "--ranks" => o.units = Some(args.number("--ranks")?),
                "--max-registers" => o.max_registers = args.number("--max-registers")?,
                "--overlap" => o.overlap = true,
                "--csv" => o.csv = true,
                "--check" => check = Some(true),
                "--no-check" => check = Some(false),
                other => return Err(args.unknown(other)),
            }
        }
        if o.size == 0 {
            o.size = match o.matrix {
                Kind::Poisson => 2048,
                Kind::Random => 1 << 22,
            };
        }
        if o.size < 2 {
            return Err(format!("--size must be at least 2, got {}", o.size));
        }
        if o.matrix == Kind::Poisson && o.size > 46340 {
            return Err(format!("--size {} makes over 2³¹ rows", o.size));
        }
        if o.per_row == 0 || o.iters == 0 {
            return Err("--per-row and --iters must be at least 1".into());
        }
        if o.tol.is_nan() || o.tol < 0.0 {
            return Err(format!("--tol must be 0 or more, got {}", o.tol));
        }
        if o.threads == 0 {
            o.threads = if o.power {
                defaults.power_threads
            } else {
                defaults.threads
            };
        }
        check_threads(o.threads)?;
        if o.max_registers == 0 {
            o.max_registers = (65536 / o.threads).min(128);
        }
        check_max_registers(o.max_registers)?;
        if o.units == Some(0) {
            return Err("--ranks must be at least 1".into());
        }
        let m = Matrix::of(&o);
        let work = m.n as u64 * m.per_row as u64 * o.iters as u64;
        o.check = check.unwrap_or(work <= 1 << 28);
        Ok(o)
    }

    /// How the dcuda program loads its module.
    pub fn load_options(&self) -> dcuda::LoadOptions {
        dcuda::LoadOptions::default().max_registers(self.max_registers)
    }

    /// The first product's scale: power iteration, the inverse of the
    /// start's norm (the vector of ones); plain products, the inverse of
    /// the largest row sum, so that the entries stay bounded.
    pub fn scale(&self, m: &Matrix) -> f64 {
        if self.power {
            1.0 / (m.n as f64).sqrt()
        } else {
            1.0 / m.row_sum_bound()
        }
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
    /// The matrix.
    pub matrix: Matrix,
    /// Products run.
    pub products: u32,
    /// The last product's norm (power iteration: the dominant eigenvalue).
    pub norm: f64,
}

impl Outcome {
    /// The outcome as the programs print it: a sentence, or a CSV header
    /// and row (with `--csv`).
    pub fn render(&self) -> Result<String, String> {
        let o = &self.options;
        let kind = match self.matrix.kind {
            Kind::Poisson => "poisson",
            Kind::Random => "random",
        };
        let mode = if o.power { "power" } else { "products" };
        if o.csv {
            self.run.csv_row(&[
                ("threads", o.threads.to_string()),
                ("matrix", kind.to_string()),
                ("rows", self.matrix.n.to_string()),
                ("mode", mode.to_string()),
                ("products", self.products.to_string()),
                ("seconds", format!("{:.6}", self.run.seconds)),
                ("norm", format!("{:.12e}", self.norm)),
                ("check", self.run.checked.clone()),
            ])
        } else {
            Ok(format!(
                "{}: {kind} matrix of {} rows, {} {mode} on {} process(es) x {} {} of {} threads ({}): {:.4} s, {:.3} ms per product, norm {:.12e}, {}\n",
                self.run.program,
                self.matrix.n,
                self.products,
                self.run.processes,
                self.run.units,
                self.run.unit,
                o.threads,
                self.run.backend,
                self.run.seconds,
                1e3 * self.run.seconds / self.products.max(1) as f64,
                self.norm,
                self.run.checked
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    fn parse(line: &str, defaults: Defaults) -> Options {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        Options::from_args(args, defaults).unwrap()
    }

    #[test]
    fn each_program_gets_its_own_default_geometry() {
        let ranks = parse("", Defaults::RANKS);
        assert_eq!((ranks.threads, ranks.max_registers), (1024, 64));
        let power = parse("--power", Defaults::RANKS);
        assert_eq!((power.threads, power.max_registers), (512, 128));
        assert_eq!(parse("--power", Defaults::BLOCKS).threads, 1024);
        let given = parse("--threads 256", Defaults::RANKS);
        assert_eq!((given.threads, given.max_registers), (256, 128));
        let capped = parse("--threads 1024 --max-registers 40", Defaults::RANKS);
        assert_eq!(capped.max_registers, 40);
    }

    #[test]
    fn a_bad_geometry_is_refused_by_name() {
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let e = Options::from_args(args("--threads 768"), Defaults::RANKS).unwrap_err();
        assert!(e.contains("--threads") && e.contains("768"), "{e}");
        let e = Options::from_args(args("--max-registers 8"), Defaults::RANKS).unwrap_err();
        assert!(e.contains("--max-registers") && e.contains('8'), "{e}");
    }
}
