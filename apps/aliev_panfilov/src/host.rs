//! What the programs share on the host: options, the decomposition and
//! the report; the initial state, the CPU reference and the check in
//! `reference`. Not part of the PTX build.

use crate::compute::TimeStep;
use crate::layout::Layout;
use crate::walk::Walking;
use app_support::args::{check_batch, check_max_registers, check_threads, Args, Geometry};
use app_support::report::{csv_columns, Run};
use std::format;
use std::string::{String, ToString};

/// The programs' options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Interior points in x and y (`--size N` sets both, or `--nx`, `--ny`).
    pub nx: u32,
    /// See `nx`.
    pub ny: u32,
    /// Time steps (`--iters`).
    pub iters: u32,
    /// Threads per rank or block (`--threads`, a power of two from 32 to
    /// 1024; default: [`RANKS`], [`BLOCKS`]).
    pub threads: u32,
    /// Ranks (dcuda) or blocks (baseline) per GPU at most (`--ranks`);
    /// `None`: as many as fit at once. The dcuda program arranges them in
    /// a grid and may use fewer.
    pub units: Option<u32>,
    /// Processes along x (`--procs-x`, default 1: processes split the rows).
    pub procs_x: u32,
    /// Ranks of a process along x (`--ranks-x`; default: the grid of
    /// ranks whose tiles are closest to [`TILE_ASPECT`] times as wide as
    /// tall).
    pub ranks_x: Option<u32>,
    /// The baseline overlaps the halo exchange with the interior
    /// (`--overlap`).
    pub overlap: bool,
    /// Print a CSV header and row instead of a sentence (`--csv`).
    pub csv: bool,
    /// The most registers a thread of the dcuda program may use
    /// (`--max-registers`; default: [`RANKS`], [`BLOCKS`]); the baseline loads
    /// uncapped.
    pub max_registers: u32,
    /// Points a thread loads before it stores any (`--batch`: 1, 2, 4 or
    /// 8; default: each program's fastest on an H100, see [`RANKS`], [`BLOCKS`]).
    pub batch: u32,
    /// How a rank's or block's threads share a step's points (`--walk
    /// claims` or `--walk stride`, the baseline's only; default: claims,
    /// see [`RANKS_WALK`], [`BLOCKS_WALK`]). `--batch`
    /// applies to the stride walk.
    pub walking: Walking,
    /// The baseline's claims walk asks for each next chunk's lines ahead
    /// (`--ahead`, with `--walk claims`); the rank kernel always does.
    pub ahead: bool,
    /// Compare with the CPU reference (`--check`, `--no-check`); by
    /// default for grids small enough to compute on the CPU in seconds.
    pub check: bool,
}

const USAGE: &str = "options: --size N | --nx N --ny N, --iters N, --threads N, --ranks N, --procs-x N, --ranks-x N, --max-registers N, --walk claims|stride, --ahead, --batch N, --overlap, --csv, --check | --no-check";

/// The dcuda program's geometry unless told otherwise (its fastest on an
/// H100, `bench/results/2026-11-24-stencils-h100/`): one rank of 1024
/// threads an SM at 64 registers (the rank kernel's runtime paths need
/// more uncapped), faster than two of 256 or 512.
pub const RANKS: Geometry = Geometry {
    threads: 1024,
    max_registers: 64,
    batch: 1,
};

/// The baseline's, its fastest on an H100.
pub const BLOCKS: Geometry = Geometry {
    threads: 1024,
    max_registers: 64,
    batch: 1,
};

/// How the dcuda program's ranks walk a step: by claims, its only walk
/// (12–14% less a step than by stride on an H200,
/// `bench/results/2026-11-29-claims-h200/`).
pub const RANKS_WALK: Walking = Walking::Claims;

/// How the baseline's blocks walk a step unless told otherwise: by
/// claims too, 7% less a step at 4096² on an H200; at 2048² `--walk
/// stride` is 2–3% faster (`bench/results/2026-11-29-claims-h200/`).
pub const BLOCKS_WALK: Walking = Walking::Claims;

impl Options {
    /// Parses the command line.
    pub fn parse(defaults: Geometry, walking: Walking) -> Result<Options, String> {
        Self::from_args(std::env::args().skip(1), defaults, walking)
    }

    /// Parses `args` (without the program's name).
    pub fn from_args(
        args: impl IntoIterator<Item = String>,
        defaults: Geometry,
        walking: Walking,
    ) -> Result<Options, String> {
        let mut o = Options {
            nx: 4096,
            ny: 4096,
            iters: 1000,
            threads: defaults.threads,
            units: None,
            procs_x: 1,
            ranks_x: None,
            overlap: false,
            csv: false,
            max_registers: defaults.max_registers,
            batch: defaults.batch,
            walking,
            ahead: false,
            check: false,
        };
        let mut check = None;
        let mut batch = None;
        let mut args = Args::new(args, USAGE);
        while let Some(arg) = args.next_flag() {
            let mut number = |name: &str| args.number(name);
            match arg.as_str() {
                "--size" => {
                    let n = number("--size")?;
                    (o.nx, o.ny) = (n, n);
                }
                "--nx" => o.nx = number("--nx")?,
                "--ny" => o.ny = number("--ny")?,
                "--iters" => o.iters = number("--iters")?,
                "--threads" => o.threads = number("--threads")?,
                "--ranks" => o.units = Some(number("--ranks")?),
                "--procs-x" => o.procs_x = number("--procs-x")?,
                "--ranks-x" => o.ranks_x = Some(number("--ranks-x")?),
                "--max-registers" => o.max_registers = number("--max-registers")?,
                "--batch" => batch = Some(number("--batch")?),
                "--walk" => {
                    let walks = [("claims", Walking::Claims), ("stride", Walking::Stride)];
                    o.walking = args.choice("--walk", &walks)?;
                }
                "--ahead" => o.ahead = true,
                "--overlap" => o.overlap = true,
                "--csv" => o.csv = true,
                "--check" => check = Some(true),
                "--no-check" => check = Some(false),
                other => return Err(args.unknown(other)),
            }
        }
        if o.nx < 2 || o.ny < 2 {
            return Err(format!(
                "the grid needs at least 2 × 2 interior points, got {} × {}",
                o.nx, o.ny
            ));
        }
        check_threads(o.threads)?;
        check_max_registers(o.max_registers)?;
        if let Some(b) = batch {
            if o.walking != Walking::Stride {
                return Err(format!(
                    "--batch {b} needs --walk stride: a batch is how the stride walk loads points"
                ));
            }
            o.batch = b;
        }
        check_batch(o.batch)?;
        if o.ahead && o.walking != Walking::Claims {
            return Err("--ahead needs --walk claims: the stride walk does not ask ahead".into());
        }
        if o.units == Some(0) || o.procs_x == 0 || o.ranks_x == Some(0) {
            return Err("--ranks, --procs-x and --ranks-x must be at least 1".into());
        }
        let work = o.nx as u64 * o.ny as u64 * o.iters as u64;
        o.check = check.unwrap_or(work <= 1 << 28);
        Ok(o)
    }

    /// How the dcuda program loads its module.
    pub fn load_options(&self) -> dcuda::LoadOptions {
        dcuda::LoadOptions::default().max_registers(self.max_registers)
    }

    /// The time step of the grid (by its x extent, as the classic code).
    pub fn time_step(&self) -> TimeStep {
        TimeStep::for_grid(self.nx)
    }

    /// The decomposition over `procs` processes of at most `units` ranks
    /// each, or why there is none: every process's part and every tile at
    /// least 2 × 2 points (a ghost point mirrors the point two in), the
    /// processes a grid of `procs_x` columns.
    pub fn layout(&self, procs: u32, units: u32) -> Result<Layout, String> {
        if !procs.is_multiple_of(self.procs_x) {
            return Err(format!(
                "--procs-x {} does not divide {procs} processes",
                self.procs_x
            ));
        }
        let procs_y = procs / self.procs_x;
        let (part_w, part_h) = (self.nx / self.procs_x, self.ny / procs_y);
        let (ranks_x, ranks_y) = match self.ranks_x {
            Some(rx) if rx <= units => (rx, units / rx),
            Some(rx) => {
                return Err(format!(
                    "--ranks-x {rx} exceeds the {units} ranks a process has"
                ))
            }
            None => rank_grid(units, part_w, part_h),
        };
        let layout = Layout {
            nx: self.nx,
            ny: self.ny,
            procs_x: self.procs_x,
            procs_y,
            ranks_x,
            ranks_y,
        };
        let (wx, wy) = layout.world();
        if self.nx < 2 * wx || self.ny < 2 * wy {
            return Err(format!(
                "{wx} × {wy} tiles for {} × {} points: every tile needs 2 × 2 (pass --ranks or --ranks-x)",
                self.nx, self.ny
            ));
        }
        Ok(layout)
    }
}

/// How many times as wide as tall the rank grid's tiles are made, if
/// they can be: wide tiles keep a warp's 128 consecutive points in one
/// row longer. On one H200, six tiles across (about 3.7 : 1) ran 1–2%
/// faster than square ones at 2048², 4096², 8192² and 2048 × 4096, and
/// the same at 1024² (`bench/results/2026-11-29-mirror-pass-h200/5-rank-grids/`).
pub const TILE_ASPECT: f64 = 4.0;

/// The grid of at most `units` ranks over a `w` × `h` part that uses the
/// most ranks, and of those the tiles closest to [`TILE_ASPECT`].
pub fn rank_grid(units: u32, w: u32, h: u32) -> (u32, u32) {
    let aspect = |rx: u32, ry: u32| {
        let (tw, th) = (w as f64 / rx as f64, h as f64 / ry as f64);
        (tw / th / TILE_ASPECT).ln().abs()
    };
    (1..=units)
        .map(|ry| (units / ry, ry))
        .filter(|&(rx, ry)| 2 * rx <= w.max(2) && 2 * ry <= h.max(2))
        .min_by(|a, b| {
            (b.0 * b.1)
                .cmp(&(a.0 * a.1))
                .then(aspect(a.0, a.1).total_cmp(&aspect(b.0, b.1)))
        })
        .unwrap_or((1, 1))
}

/// One measured run, as printed.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// What every program reports: program, backend, processes (those
    /// of `layout`), units (its ranks of a process), seconds, check.
    pub run: Run,
    /// The decomposition it ran.
    pub layout: Layout,
    /// The options it ran with.
    pub options: Options,
}

impl Outcome {
    /// The outcome as the programs print it: a sentence, or a CSV header
    /// and row (with `--csv`).
    pub fn render(&self) -> Result<String, String> {
        let (o, l) = (&self.options, &self.layout);
        let (procs, units) = (self.run.processes, self.run.units);
        if !o.csv {
            return Ok(format!(
                "{}: {} x {} grid, {} steps on {procs} process(es) ({} x {}) x {units} {} ({} x {}) of {} threads ({}): {:.4} s, {:.3} ms per step, {}\n",
                self.run.program, o.nx, o.ny, o.iters, l.procs_x, l.procs_y, self.run.unit,
                l.ranks_x, l.ranks_y, o.threads, self.run.backend, self.run.seconds,
                1e3 * self.run.seconds / o.iters.max(1) as f64, self.run.checked
            ));
        }
        csv_columns(&[
            ("program", self.run.program.clone()),
            ("backend", self.run.backend.clone()),
            ("processes", procs.to_string()),
            ("procs_x", l.procs_x.to_string()),
            ("units", units.to_string()),
            ("ranks_x", l.ranks_x.to_string()),
            ("threads", o.threads.to_string()),
            ("nx", o.nx.to_string()),
            ("ny", o.ny.to_string()),
            ("iters", o.iters.to_string()),
            ("seconds", format!("{:.6}", self.run.seconds)),
            ("check", self.run.checked.clone()),
            ("batch", o.batch.to_string()),
            ("max_registers", o.max_registers.to_string()),
            ("walk", format!("{:?}", o.walking).to_lowercase()),
            ("ahead", o.ahead.to_string()),
        ])
    }
}

mod reference;
pub use reference::{check, initial};

#[cfg(test)]
mod tests;
