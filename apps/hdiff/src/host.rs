//! What the programs share on the host: options, the initial state, the
//! CPU reference, the check and the report. Not part of the PTX build.

use crate::compute::{split, Shape};
use app_support::args::{check_batch, check_max_registers, check_threads, Args};
use app_support::report::Run;
use dcuda::LoadCaching;
use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

mod geometry;
pub use geometry::{balanced_threads, rank_caching, Geometry, BLOCKS, BLOCK_CACHING, CHUNK, RANKS};

/// The programs' options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Points in x (`--nx`), rows in y (`--ny`), levels (`--nz`).
    pub nx: u32,
    /// See `nx`.
    pub ny: u32,
    /// See `nx`.
    pub nz: u32,
    /// Iterations (`--iters`).
    pub iters: u32,
    /// Threads per rank or block (`--threads`, a power of two from 32 to
    /// 1024; default: [`RANKS`], [`BLOCKS`]).
    pub threads: u32,
    /// Whether `--threads` was given; if not, the dcuda program picks them
    /// by [`balanced_threads`].
    pub threads_given: bool,
    /// Ranks (dcuda) or blocks (baseline) per GPU (`--ranks`); `None`: as
    /// many as fit at once, at most a row each.
    pub units: Option<u32>,
    /// The baseline overlaps each stage's halo exchange with the stage's
    /// interior (`--overlap`).
    pub overlap: bool,
    /// Print a CSV header and row instead of a sentence (`--csv`).
    pub csv: bool,
    /// The most registers a thread of the dcuda program may use
    /// (`--max-registers`; default: [`RANKS`], raised on a GPU as far as
    /// its ranks still fit, see `registers_to_share`); the baseline loads
    /// uncapped.
    pub max_registers: u32,
    /// Whether `--max-registers` was given.
    pub max_registers_given: bool,
    /// Points a thread of the baseline loads before it stores any
    /// (`--batch`: 1, 2, 4 or 8; default [`BLOCKS`]); the rank kernel walks
    /// one point at a time and the dcuda program refuses another.
    pub batch: u32,
    /// Points of a row a block of the baseline walks down its rows before
    /// the next ones (`--chunk`, 0 for whole rows; see `Walk`). The rank
    /// kernel walks across its rows (`Order::Across`), and the dcuda
    /// program refuses the option.
    pub chunk: u32,
    /// Whether `--chunk` was given.
    pub chunk_given: bool,
    /// Whether the program walks across its rows (the dcuda program sets
    /// it, for the report: its chunk is `across`).
    pub across: bool,
    /// How many of its points ahead a thread of the baseline asks for a
    /// point's lines in L1 (`--prefetch N`, with a batch of 1 or 2; 0, the
    /// default: none). The rank kernel always asks one point ahead.
    pub prefetch: u32,
    /// Where the kernels' plain global loads are cached (`--dlcm ca`: L1
    /// and L2, `--dlcm cg`: L2 only, as ptxas's `-dlcm`; the driver then
    /// compiles the PTX when it loads it); `None`, the default: each
    /// program's fastest, [`rank_caching`] and [`BLOCK_CACHING`].
    pub caching: Option<LoadCaching>,
    /// Compare with the CPU reference (`--check`, `--no-check`); by
    /// default for grids small enough to compute on the CPU in seconds.
    pub check: bool,
}

const USAGE: &str = "options: --nx N --ny N --nz N, --iters N, --threads N, --ranks N, --max-registers N, --batch N, --chunk N, --prefetch N, --dlcm ca|cg, --overlap, --csv, --check | --no-check";

impl Options {
    /// Parses the command line.
    pub fn parse(defaults: Geometry) -> Result<Options, String> {
        Self::from_args(std::env::args().skip(1), defaults)
    }

    /// Parses `args` (without the program's name).
    pub fn from_args(
        args: impl IntoIterator<Item = String>,
        defaults: Geometry,
    ) -> Result<Options, String> {
        // The seed's 128 × 320 × 26 points a GPU, scaled by 4 × 4 × 1.25
        // for an H200 (20× the memory bandwidth of the seed's K80 half).
        let mut o = Options {
            nx: 512,
            ny: 1280,
            nz: 32,
            iters: 200,
            threads: defaults.threads,
            threads_given: false,
            units: None,
            overlap: false,
            csv: false,
            max_registers: defaults.max_registers,
            max_registers_given: false,
            batch: defaults.batch,
            chunk: CHUNK,
            chunk_given: false,
            across: false,
            prefetch: 0,
            caching: None,
            check: false,
        };
        let mut check = None;
        let mut args = Args::new(args, USAGE);
        while let Some(arg) = args.next_flag() {
            let mut number = |name: &str| args.number(name);
            match arg.as_str() {
                "--nx" => o.nx = number("--nx")?,
                "--ny" => o.ny = number("--ny")?,
                "--nz" => o.nz = number("--nz")?,
                "--iters" => o.iters = number("--iters")?,
                "--threads" => {
                    o.threads = number("--threads")?;
                    o.threads_given = true;
                }
                "--ranks" => o.units = Some(number("--ranks")?),
                "--max-registers" => {
                    o.max_registers = number("--max-registers")?;
                    o.max_registers_given = true;
                }
                "--batch" => o.batch = number("--batch")?,
                "--chunk" => {
                    o.chunk = number("--chunk")?;
                    o.chunk_given = true;
                }
                "--prefetch" => o.prefetch = number("--prefetch")?,
                "--dlcm" => {
                    let choices = [("ca", LoadCaching::L1AndL2), ("cg", LoadCaching::L2Only)];
                    o.caching = Some(args.choice("--dlcm", &choices)?)
                }
                "--overlap" => o.overlap = true,
                "--csv" => o.csv = true,
                "--check" => check = Some(true),
                "--no-check" => check = Some(false),
                other => return Err(args.unknown(other)),
            }
        }
        if o.nx < 5 || o.ny < 1 || o.nz < 1 {
            return Err(format!(
                "the grid needs nx ≥ 5 (a frame of two columns a side), ny ≥ 1 and nz ≥ 1, got {} × {} × {}",
                o.nx, o.ny, o.nz
            ));
        }
        let row = o.nx as u64 * o.nz as u64;
        if row > (u32::MAX / 2) as u64 {
            return Err(format!(
                "a row of nx × nz = {} × {} = {row} points is more than the walks count (2^31)",
                o.nx, o.nz
            ));
        }
        check_threads(o.threads)?;
        check_max_registers(o.max_registers)?;
        check_batch(o.batch)?;
        if o.units == Some(0) {
            return Err("--ranks must be at least 1".into());
        }
        let work = o.nx as u64 * o.ny as u64 * o.nz as u64 * o.iters as u64;
        o.check = check.unwrap_or(work <= 1 << 28);
        Ok(o)
    }

    // ANCHOR: load_options
    /// How the dcuda program loads its module (before its ranks are
    /// known, caching in L2 only unless told).
    pub fn load_options(&self) -> dcuda::LoadOptions {
        dcuda::LoadOptions::default()
            .max_registers(self.max_registers)
            .caching(self.caching.unwrap_or(LoadCaching::L2Only))
    }
    // ANCHOR_END: load_options

    /// Elements of a row (`nz · nx`).
    pub fn width(&self) -> usize {
        self.nz as usize * self.nx as usize
    }
}

/// The rows one process owns: `start..end` of the grid's `ny`.
#[derive(Clone, Copy, Debug)]
pub struct Band {
    /// The grid.
    pub nx: u32,
    /// See `nx`.
    pub ny: u32,
    /// See `nx`.
    pub nz: u32,
    /// First row of the process.
    pub start: u32,
    /// One past its last.
    pub end: u32,
}

impl Band {
    /// The band of the process whose world ranks are `first..first+count`
    /// of `total`, with rows split over ranks as the kernels split them.
    pub fn of_ranks(o: &Options, first: u32, count: u32, total: u32) -> Band {
        Band {
            nx: o.nx,
            ny: o.ny,
            nz: o.nz,
            start: split(o.ny, total, first).0,
            end: split(o.ny, total, first + count - 1).1,
        }
    }

    /// Rows owned.
    pub fn rows(&self) -> u32 {
        self.end - self.start
    }

    /// The shape of the process's fields: its rows and two halo rows.
    pub fn shape(&self) -> Shape {
        Shape {
            nx: self.nx,
            nz: self.nz,
            rows: self.rows() + 2,
        }
    }

    /// The fields' rows as grid rows: array row `r` is grid row
    /// `start − 1 + r`, periodic.
    fn grid_row(&self, r: u32) -> u32 {
        (self.start + r + self.ny - 1) % self.ny
    }

    /// A field of the band whose point `(x, y, z)` is `f(x, y, z)`.
    fn field(&self, f: impl Fn(u32, u32, u32) -> f64) -> Vec<f64> {
        let mut v = Vec::with_capacity(self.shape().len());
        for r in 0..self.rows() + 2 {
            let y = self.grid_row(r);
            for z in 0..self.nz {
                v.extend((0..self.nx).map(|x| f(x, y, z)));
            }
        }
        v
    }

    /// The initial state: a smooth wave and a sawtooth, so that the
    /// limiter acts.
    pub fn initial(&self) -> Vec<f64> {
        let (nx, ny) = (self.nx as f64, self.ny as f64);
        self.field(|x, y, z| {
            let wave = (core::f64::consts::TAU * x as f64 / nx).sin()
                * (core::f64::consts::TAU * y as f64 / ny).cos();
            wave + ((x * 7 + y * 13 + z * 3) % 17) as f64 / 17.0
        })
    }

    /// The diffusion coefficient, varying a little from point to point.
    pub fn coeff(&self) -> Vec<f64> {
        self.field(|x, y, z| 0.02 + 0.002 * ((x + 2 * y + 3 * z) % 5) as f64)
    }
}

/// The CPU reference: the whole grid (`ny` rows of `nz · nx`) after
/// `iters` iterations, each stencil written out directly over the
/// periodic grid, with the operations in the kernels' order.
pub fn reference(o: &Options) -> Vec<f64> {
    let whole = Band {
        nx: o.nx,
        ny: o.ny,
        nz: o.nz,
        start: 0,
        end: o.ny,
    };
    let (nx, ny, w) = (o.nx as usize, o.ny as usize, o.width());
    let strip = |v: Vec<f64>| v[w..(ny + 1) * w].to_vec(); // drop the halos
    let (mut inp, coeff) = (strip(whole.initial()), strip(whole.coeff()));
    let (mut lap, mut flx, mut fly) = (vec0(ny * w), vec0(ny * w), vec0(ny * w));
    let mut out = inp.clone();
    let at = |y: usize, e: usize| y * w + e;
    let (up, down) = (|y: usize| (y + ny - 1) % ny, |y: usize| (y + 1) % ny);
    let limit = |f: f64, g: f64| if f * g > 0.0 { 0.0 } else { f };
    for _ in 0..o.iters {
        for y in 0..ny {
            for e in (0..w).filter(|e| (1..nx - 1).contains(&(e % nx))) {
                let c = at(y, e);
                let around = inp[c + 1] + inp[c - 1] + inp[at(down(y), e)] + inp[at(up(y), e)];
                lap[c] = 4.0 * inp[c] - around;
            }
        }
        for y in 0..ny {
            for e in (0..w).filter(|e| (1..nx - 2).contains(&(e % nx))) {
                let (c, s) = (at(y, e), at(down(y), e));
                flx[c] = limit(lap[c + 1] - lap[c], inp[c + 1] - inp[c]);
                fly[c] = limit(lap[s] - lap[c], inp[s] - inp[c]);
            }
        }
        for y in 0..ny {
            for e in (0..w).filter(|e| (2..nx - 2).contains(&(e % nx))) {
                let (c, n) = (at(y, e), at(up(y), e));
                let divergence = (flx[c] - flx[c - 1]) + (fly[c] - fly[n]);
                out[c] = inp[c] - coeff[c] * divergence;
            }
        }
        std::mem::swap(&mut inp, &mut out);
        out.copy_from_slice(&inp); // the frame stays as it is
    }
    inp
}

fn vec0(n: usize) -> Vec<f64> {
    std::vec![0.0; n]
}

/// Compares a band's rows (`got`, halos included) with the reference,
/// bitwise (the same operations in the same order).
pub fn check(o: &Options, band: &Band, got: &[f64]) -> Result<(), String> {
    let want = reference(o);
    let (nx, w) = (o.nx as usize, o.width());
    for r in 1..=band.rows() as usize {
        let y = band.start as usize + r - 1;
        let (g, t) = (&got[r * w..(r + 1) * w], &want[y * w..(y + 1) * w]);
        if let Some(e) = (0..w).find(|&e| g[e].to_bits() != t[e].to_bits()) {
            return Err(format!(
                "point x {}, y {y}, z {}: {} but the CPU reference has {}",
                e % nx,
                e / nx,
                g[e],
                t[e]
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
}

impl Outcome {
    /// The outcome as the programs print it: a sentence, or a CSV header
    /// and row (with `--csv`).
    pub fn render(&self) -> Result<String, String> {
        let o = &self.options;
        if !o.csv {
            return Ok(format!(
                "{}: {} x {} x {} grid, {} iterations on {} process(es) x {} {} of {} threads ({}): {:.4} s, {:.3} ms per iteration, {}\n",
                self.run.program, o.nx, o.ny, o.nz, o.iters, self.run.processes, self.run.units, self.run.unit,
                o.threads, self.run.backend, self.run.seconds,
                1e3 * self.run.seconds / o.iters.max(1) as f64, self.run.checked
            ));
        }
        self.run.csv_row(&[
            ("threads", o.threads.to_string()),
            ("nx", o.nx.to_string()),
            ("ny", o.ny.to_string()),
            ("nz", o.nz.to_string()),
            ("iters", o.iters.to_string()),
            ("seconds", format!("{:.6}", self.run.seconds)),
            ("check", self.run.checked.clone()),
            ("batch", o.batch.to_string()),
            ("max_registers", o.max_registers.to_string()),
            (
                "chunk",
                if o.across {
                    "across".into()
                } else {
                    o.chunk.to_string()
                },
            ),
            ("prefetch", o.prefetch.to_string()),
            ("dlcm", dlcm(o.caching).into()),
        ])
    }
}

/// `--dlcm`'s name for `caching`.
fn dlcm(caching: Option<LoadCaching>) -> &'static str {
    match caching {
        None => "default",
        Some(LoadCaching::L1AndL2) => "ca",
        Some(LoadCaching::L2Only) => "cg",
    }
}

#[cfg(test)]
mod tests;
