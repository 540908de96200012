//! What the programs share on the host: options, the problem
//! (`setup`), the CPU reference and checks (`reference`), and the
//! report. Not part of the PTX build.

mod reference;
mod setup;

pub use reference::{check, reference, Result, DRIFT};
pub use setup::{domain, max_slabs, slab_of, start, Arrays, Particle};

use app_support::args::{check_max_registers, check_threads, Args};
use app_support::report::Run;
use std::format;
use std::string::{String, ToString};

/// The programs' options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Particles (`--size`; default 2²⁰).
    pub size: u32,
    /// Particles per unit area (`--density`; default 2: about six within
    /// the cutoff of each).
    pub density: f64,
    /// The box's width over its height (`--aspect`; default 1, a square).
    /// The slabs split the width, so a weak-scaling run doubles it with
    /// the particles: each slab keeps its shape.
    pub aspect: f64,
    /// Time steps (`--iters`; default 100).
    pub iters: u32,
    /// Steps between energy checks (`--every`; default 10).
    pub every: u32,
    /// The time step (`--dt`; default 0.005).
    pub dt: f64,
    /// The largest starting velocity component (`--speed`; default 1).
    pub speed: f64,
    /// Room for this many times the particles a slab and a message hold on
    /// average (`--slack`; default 2).
    pub slack: f64,
    /// Threads per rank or block (`--threads`; default 512: the dcuda
    /// program's fastest on an H100 at 2¹⁸ and 2²⁰ particles, 132 ranks).
    pub threads: u32,
    /// Ranks (dcuda) or blocks (baseline) per GPU (`--ranks`); `None`: as
    /// many as fit at once.
    pub units: Option<u32>,
    /// The most registers a thread of the dcuda program may use
    /// (`--max-registers`): by default 64 from 2²⁰ particles up (two
    /// ranks of 512 threads an SM: 0.96 and 1.01 of the baseline's time
    /// on an H100 at 2²⁰ and 2²², against 0.99 and 1.07 at 128), else 128
    /// (at 2¹⁸ a cap of 64 took 25.7 ms against 20.5).
    pub max_registers: u32,
    /// The baseline overlaps the halo's exchange with the own forces
    /// (`--overlap`).
    pub overlap: bool,
    /// Print a CSV header and row instead of a sentence (`--csv`).
    pub csv: bool,
    /// Run the CPU reference and compare (`--check`, `--no-check`); by
    /// default up to 2²⁴ particle-steps.
    pub check: bool,
}

const USAGE: &str = "options: --size N, --density X, --aspect X, --iters N, --every N, --dt X, --speed X, --slack X, --threads N, --ranks N, --max-registers N, --overlap, --csv, --check | --no-check";

impl Options {
    /// Parses the command line.
    pub fn parse() -> std::result::Result<Options, String> {
        Self::from_args(std::env::args().skip(1))
    }

    /// Parses `args` (without the program's name).
    pub fn from_args(
        args: impl IntoIterator<Item = String>,
    ) -> std::result::Result<Options, String> {
        let mut o = Options {
            size: 1 << 20,
            density: 2.0,
            aspect: 1.0,
            iters: 100,
            every: 10,
            dt: 0.005,
            speed: 1.0,
            slack: 2.0,
            threads: 512,
            units: None,
            max_registers: 128,
            overlap: false,
            csv: false,
            check: false,
        };
        let (mut check, mut cap) = (None, None);
        let mut args = Args::new(args, USAGE);
        let real = |args: &mut Args<_>, name: &str| -> std::result::Result<f64, String> {
            let v = args.next_flag().unwrap_or_default();
            match v.parse::<f64>() {
                Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
                _ => Err(format!(
                    "{name} takes a positive number, got `{v}`; {USAGE}"
                )),
            }
        };
        while let Some(arg) = args.next_flag() {
            match arg.as_str() {
                "--size" => o.size = args.number("--size")?,
                "--density" => o.density = real(&mut args, "--density")?,
                "--aspect" => o.aspect = real(&mut args, "--aspect")?,
                "--iters" => o.iters = args.number("--iters")?,
                "--every" => o.every = args.number("--every")?,
                "--dt" => o.dt = real(&mut args, "--dt")?,
                "--speed" => o.speed = real(&mut args, "--speed")?,
                "--slack" => o.slack = real(&mut args, "--slack")?,
                "--threads" => o.threads = args.number("--threads")?,
                "--ranks" => o.units = Some(args.number("--ranks")?),
                "--max-registers" => cap = Some(args.number("--max-registers")?),
                "--overlap" => o.overlap = true,
                "--csv" => o.csv = true,
                "--check" => check = Some(true),
                "--no-check" => check = Some(false),
                other => return Err(args.unknown(other)),
            }
        }
        if o.size < 2 || o.iters == 0 || o.every == 0 {
            return Err("--size must be at least 2, --iters and --every at least 1".into());
        }
        if o.slack < 1.0 {
            return Err(format!("--slack must be at least 1, got {}", o.slack));
        }
        o.max_registers = cap.unwrap_or(if o.size >= 1 << 20 { 64 } else { 128 });
        check_threads(o.threads)?;
        check_max_registers(o.max_registers)?;
        if o.units == Some(0) {
            return Err("--ranks must be at least 1".into());
        }
        o.check = check.unwrap_or(o.size as u64 * o.iters as u64 <= 1 << 24);
        Ok(o)
    }

    /// How the dcuda program loads its module.
    pub fn load_options(&self) -> dcuda::LoadOptions {
        dcuda::LoadOptions::default().max_registers(self.max_registers)
    }

    /// Energy checks a run makes: step 0, every `every`, and the last.
    pub fn checks(&self) -> usize {
        1 + self.iters.div_ceil(self.every) as usize
    }
}

/// What an abort code of the rank kernel, or an error of a baseline's
/// block, means: `code` and its values in words.
pub fn explain(code: u32, values: [u64; 3]) -> String {
    let [a, b, c] = values;
    match code {
        crate::abort_codes::MESSAGE_FULL => format!("a message of {a} particles outgrew its room of {b} (region {c}): pass a larger --slack"),
        crate::abort_codes::SLAB_FULL => format!("slab {c} received particles to {a}, over its room of {b}: pass a larger --slack"),
        crate::abort_codes::STRAY => format!("{a} particles of slab {c} moved past a neighbour's slab in one step (step {b}): pass a smaller --dt or fewer --ranks"),
        _ => format!("unknown code {code} (values {a}, {b}, {c})"),
    }
}

/// An error of the dcuda run, with the particle program's abort codes
/// explained.
pub fn explain_error(e: dcuda::Error) -> String {
    let text = e.to_string();
    let Some(at) = text.find("aborted the run with code ") else {
        return text;
    };
    let rest = &text[at + "aborted the run with code ".len()..];
    let nums: std::vec::Vec<u64> = rest
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .take(4)
        .filter_map(|s| s.parse().ok())
        .collect();
    match nums[..] {
        [code, a, b, c] => format!("{text}\n{}", explain(code as u32, [a, b, c])),
        _ => text,
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
    /// The largest energy drift over the checks, relative to the start.
    pub drift: f64,
}

impl Outcome {
    /// The outcome as the programs print it: a sentence, or a CSV header
    /// and row (with `--csv`).
    pub fn render(&self) -> std::result::Result<String, String> {
        let o = &self.options;
        if o.csv {
            self.run.csv_row(&[
                ("threads", o.threads.to_string()),
                ("particles", o.size.to_string()),
                ("aspect", o.aspect.to_string()),
                ("steps", o.iters.to_string()),
                ("seconds", format!("{:.6}", self.run.seconds)),
                ("drift", format!("{:.3e}", self.drift)),
                ("check", self.run.checked.clone()),
            ])
        } else {
            Ok(format!(
                "{}: {} particles, {} steps on {} process(es) x {} {} of {} threads ({}): {:.4} s, {:.3} ms per step, energy drift {:.2e}, {}\n",
                self.run.program,
                o.size,
                o.iters,
                self.run.processes,
                self.run.units,
                self.run.unit,
                o.threads,
                self.run.backend,
                self.run.seconds,
                1e3 * self.run.seconds / o.iters as f64,
                self.drift,
                self.run.checked
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Options;
    use std::string::ToString;

    fn parse(args: &[&str]) -> Options {
        Options::from_args(args.iter().map(|a| a.to_string())).unwrap()
    }

    #[test]
    fn the_register_cap_follows_the_problem_size_unless_given() {
        assert_eq!(parse(&["--size", "262144"]).max_registers, 128);
        assert_eq!(parse(&["--size", "1048576"]).max_registers, 64);
        assert_eq!(
            parse(&["--size", "1048576", "--max-registers", "96"]).max_registers,
            96
        );
        assert_eq!(parse(&[]).max_registers, 64);
        let e = Options::from_args(["--slack".to_string(), "0.5".to_string()]).unwrap_err();
        assert!(e.contains("--slack must be at least 1"), "{e}");
    }
}
