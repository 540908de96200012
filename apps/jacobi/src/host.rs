//! What the programs share on the host: options, the initial state, the
//! CPU reference and the report. Not part of the PTX build.

use crate::compute::split;
use app_support::args::{check_max_registers, check_threads, Args};
use app_support::report::Run;
use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

/// The programs' options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Columns and rows of the grid, halos included (`--size N` sets both).
    pub nx: u32,
    /// See `nx`.
    pub ny: u32,
    /// Iterations (`--iters`).
    pub iters: u32,
    /// Threads per rank or block (`--threads`, a power of two ≤ 1024;
    /// default: each program's fastest on an H100, see [`Defaults`]).
    pub threads: u32,
    /// Ranks (dcuda) or blocks (baseline) per GPU (`--ranks`); `None`: as
    /// many as fit at once.
    pub units: Option<u32>,
    /// The baseline overlaps the halo exchange with the interior
    /// (`--overlap`).
    pub overlap: bool,
    /// Print a CSV header and row instead of a sentence (`--csv`).
    pub csv: bool,
    /// The most registers a thread of the dcuda program may use
    /// (`--max-registers`; default 128; the baselines load uncapped). Uncapped, the rank kernel's busiest path (the runtime's
    /// collectives) takes 161 registers, and one rank of 256 threads fits
    /// on an SM; at 128, two. Lower caps fit more ranks but spill: at 64,
    /// 512 threads a rank ran 25% slower on an H100.
    pub max_registers: u32,
    /// Compare with the CPU reference (`--check`, `--no-check`); by
    /// default for grids small enough to compute on the CPU in seconds.
    pub check: bool,
}

const USAGE: &str = "options: --size N | --nx N --ny N, --iters N, --threads N, --ranks N, --max-registers N, --overlap, --csv, --check | --no-check";

/// What a program runs with unless told otherwise.
#[derive(Clone, Copy, Debug)]
pub struct Defaults {
    /// Threads per rank or block.
    pub threads: u32,
}

impl Defaults {
    /// The dcuda program's: ranks of 512 threads, one an SM at 128
    /// registers. With the sweep four columns at a time, faster than 256 on
    /// two H200s at 4096² and 16384², on one GPU and two
    /// (`bench/results/2026-11-27-apart-h200x2/`).
    pub const RANKS: Defaults = Defaults { threads: 512 };
    /// The baselines': blocks of 1024 threads, their fastest on an H200
    /// with the sweep four columns at a time (against 512; 512 was their
    /// fastest on an H100 one column at a time).
    pub const BLOCKS: Defaults = Defaults { threads: 1024 };
}

impl Options {
    /// Parses the command line.
    pub fn parse(defaults: Defaults) -> Result<Options, String> {
        Self::from_args(std::env::args().skip(1), defaults)
    }

    /// Parses `args` (without the program's name).
    pub fn from_args(
        args: impl IntoIterator<Item = String>,
        defaults: Defaults,
    ) -> Result<Options, String> {
        let mut o = Options {
            nx: 4096,
            ny: 4096,
            iters: 1000,
            threads: defaults.threads,
            units: None,
            max_registers: 128,
            overlap: false,
            csv: false,
            check: false,
        };
        let mut check = None;
        let mut args = Args::new(args, USAGE);
        while let Some(arg) = args.next_flag() {
            let mut number = |name: &str| args.number(name);
            match arg.as_str() {
                "--size" => {
                    (o.nx, o.ny) = {
                        let n = number("--size")?;
                        (n, n)
                    }
                }
                "--nx" => o.nx = number("--nx")?,
                "--ny" => o.ny = number("--ny")?,
                "--iters" => o.iters = number("--iters")?,
                "--threads" => o.threads = number("--threads")?,
                "--ranks" => o.units = Some(number("--ranks")?),
                "--max-registers" => o.max_registers = number("--max-registers")?,
                "--overlap" => o.overlap = true,
                "--csv" => o.csv = true,
                "--check" => check = Some(true),
                "--no-check" => check = Some(false),
                other => return Err(args.unknown(other)),
            }
        }
        if o.nx < 3 || o.ny < 3 {
            return Err(format!(
                "the grid needs at least 3 × 3 points, got {} × {}",
                o.nx, o.ny
            ));
        }
        check_threads(o.threads)?;
        check_max_registers(o.max_registers)?;
        if o.units == Some(0) {
            return Err("--ranks must be at least 1".into());
        }
        let work = o.nx as u64 * o.ny as u64 * o.iters as u64;
        o.check = check.unwrap_or(work <= 1 << 30);
        Ok(o)
    }

    /// How the dcuda program loads its module.
    pub fn load_options(&self) -> dcuda::LoadOptions {
        dcuda::LoadOptions::default().max_registers(self.max_registers)
    }

    /// Interior rows of the grid.
    pub fn rows(&self) -> u32 {
        self.ny - 2
    }
}

/// The rows one process owns: `start..end` of the grid's interior rows.
#[derive(Clone, Copy, Debug)]
pub struct Band {
    /// Columns.
    pub nx: u32,
    /// Rows of the grid, halos included.
    pub ny: u32,
    /// First interior row of the process.
    pub start: u32,
    /// One past its last.
    pub end: u32,
}

impl Band {
    /// The band of the process whose world ranks are `first..first+count`
    /// of `total`, with rows split over ranks as the kernels split them.
    pub fn of_ranks(o: &Options, first: u32, count: u32, total: u32) -> Band {
        let start = split(o.rows(), total, first).0;
        let end = split(o.rows(), total, first + count - 1).1;
        Band {
            nx: o.nx,
            ny: o.ny,
            start,
            end,
        }
    }

    /// Rows owned.
    pub fn rows(&self) -> u32 {
        self.end - self.start
    }

    /// Elements of the process's arrays: its rows and two halo rows.
    pub fn len(&self) -> usize {
        (self.rows() as usize + 2) * self.nx as usize
    }

    /// Whether the band owns no rows.
    pub fn is_empty(&self) -> bool {
        self.rows() == 0
    }

    /// The initial state of the band: zero, with the fixed boundaries.
    pub fn initial(&self) -> Vec<f32> {
        let nx = self.nx as usize;
        let mut a = std::vec![0.0f32; self.len()];
        for r in 0..self.rows() as usize + 2 {
            // Array row r is grid row start + r (row 0 of the grid is a halo).
            let y0 = boundary(self.start + r as u32, self.ny);
            a[r * nx] = y0;
            a[r * nx + nx - 1] = y0;
        }
        a
    }
}

/// The fixed value of the left and right boundary in grid row `row`.
pub fn boundary(row: u32, ny: u32) -> f32 {
    (2.0 * std::f64::consts::PI * row as f64 / (ny - 1) as f64).sin() as f32
}

/// The CPU reference: the whole grid after `iters` iterations, and each
/// iteration's squared norm (summed in f64).
pub fn reference(nx: u32, ny: u32, iters: u32) -> (Vec<f32>, Vec<f64>) {
    let whole = Band {
        nx,
        ny,
        start: 0,
        end: ny - 2,
    };
    let (nx, ny) = (nx as usize, ny as usize);
    let mut a = whole.initial();
    let mut b = a.clone();
    let mut norms = Vec::with_capacity(iters as usize);
    for _ in 0..iters {
        let mut norm = 0.0f64;
        for iy in 1..ny - 1 {
            for ix in 1..nx - 1 {
                let i = iy * nx + ix;
                let v = 0.25f32 * (a[i + 1] + a[i - 1] + a[i + nx] + a[i - nx]);
                b[i] = v;
                norm += ((v - a[i]) as f64).powi(2);
            }
        }
        // Periodic in y: the halos are the last and first interior rows.
        b.copy_within((ny - 2) * nx..(ny - 1) * nx, 0);
        b.copy_within(nx..2 * nx, (ny - 1) * nx);
        norms.push(norm);
        std::mem::swap(&mut a, &mut b);
    }
    (a, norms)
}

/// Compares a band's rows (`got`, halos included) and the norms with the
/// reference: the rows bitwise (the same operations in the same order),
/// the norms to a relative 1e-3 (sums in another order, in f32).
pub fn check(band: &Band, got: &[f32], norms: Option<&[f32]>, iters: u32) -> Result<(), String> {
    let (want, want_norms) = reference(band.nx, band.ny, iters);
    let nx = band.nx as usize;
    for r in 1..=band.rows() as usize {
        let row = band.start as usize + r;
        let (g, w) = (&got[r * nx..(r + 1) * nx], &want[row * nx..(row + 1) * nx]);
        if let Some(ix) = (0..nx).find(|&i| g[i].to_bits() != w[i].to_bits()) {
            return Err(format!(
                "grid row {row}, column {ix}: {} but the CPU reference has {}",
                g[ix], w[ix]
            ));
        }
    }
    for (k, (&g, &w)) in norms.unwrap_or(&[]).iter().zip(&want_norms).enumerate() {
        if (g as f64 - w).abs() > 1e-3 * w.abs().max(1e-30) {
            return Err(format!(
                "iteration {k}: squared norm {g} but the CPU reference has {w}"
            ));
        }
    }
    Ok(())
}

/// One measured run, as printed.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// What every program reports: program, backend, processes,
    /// units, seconds, check.
    pub run: Run,
    /// The options it ran with.
    pub options: Options,
    /// The last iteration's L2 norm.
    pub norm: f64,
}

impl Outcome {
    /// The outcome as the programs print it: a sentence, or a CSV header
    /// and row (with `--csv`).
    pub fn render(&self) -> Result<String, String> {
        let o = &self.options;
        if o.csv {
            self.run.csv_row(&[
                ("threads", o.threads.to_string()),
                ("nx", o.nx.to_string()),
                ("ny", o.ny.to_string()),
                ("iters", o.iters.to_string()),
                ("seconds", format!("{:.6}", self.run.seconds)),
                ("norm", format!("{:e}", self.norm)),
                ("check", self.run.checked.clone()),
            ])
        } else {
            Ok(format!(
                "{}: {} x {} grid, {} iterations on {} process(es) x {} {} of {} threads ({}): {:.4} s, {:.3} ms per iteration, norm {:e}, {}\n",
                self.run.program,
                o.nx,
                o.ny,
                o.iters,
                self.run.processes,
                self.run.units,
                self.run.unit,
                o.threads,
                self.run.backend,
                self.run.seconds,
                1e3 * self.run.seconds / o.iters.max(1) as f64,
                self.norm,
                self.run.checked
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;

    fn options(args: &[&str]) -> Result<Options, String> {
        Options::from_args(args.iter().map(|a| a.to_string()), Defaults::RANKS)
    }

    #[test]
    fn check_finds_a_changed_point_and_a_wrong_norm() {
        let o = options(&["--nx", "9", "--ny", "12", "--iters", "3"]).unwrap();
        let band = Band::of_ranks(&o, 1, 1, 2);
        assert_eq!((band.start, band.end), (5, 10));
        let (grid, norms) = reference(9, 12, 3);
        let nx = 9;
        let mut mine = grid[band.start as usize * nx..(band.end as usize + 2) * nx].to_vec();
        let norms: Vec<f32> = norms.iter().map(|&n| n as f32).collect();
        assert_eq!(check(&band, &mine, Some(&norms), 3), Ok(()));
        mine[3 * nx + 4] += 1e-7;
        let err = check(&band, &mine, None, 3).unwrap_err();
        assert!(err.starts_with("grid row 8, column 4:"), "{err}");
        mine[3 * nx + 4] -= 1e-7;
        let mut wrong = norms.clone();
        wrong[2] *= 1.01;
        let err = check(&band, &mine, Some(&wrong), 3).unwrap_err();
        assert!(err.starts_with("iteration 2: squared norm"), "{err}");
    }

    #[test]
    fn bad_options_are_named() {
        assert!(options(&["--size", "x"])
            .unwrap_err()
            .contains("`x` is not a number"));
        assert!(options(&["--threads", "96"])
            .unwrap_err()
            .contains("power of two"));
        assert!(options(&["--size", "2"])
            .unwrap_err()
            .contains("at least 3 × 3"));
        assert!(options(&["--bogus"])
            .unwrap_err()
            .contains("unknown option `--bogus`"));
        let small = options(&["--size", "64", "--iters", "10"]).unwrap();
        assert!(small.check, "small grids are checked by default");
        assert!(
            !options(&[]).unwrap().check,
            "4096² x 1000 is not checked by default"
        );
        assert_eq!(vec![small.rows()], vec![62]);
    }
}
