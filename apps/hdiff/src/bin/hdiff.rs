//! Horizontal diffusion with dcuda: one persistent kernel per GPU, a rank
//! per block, every stage's halo row put with a notification as soon as
//! it is computed. Run alone or under `mpirun -np N` (one GPU a process).
//! Options: see `hdiff_kernels::host::Options`.

use app_support::report::Run;
use dcuda::{RunConfig, Runtime};
use hdiff_kernels::host::{balanced_threads, check, rank_caching, Band, Options, Outcome, RANKS};
use hdiff_kernels::{HdiffArgs, Work, AHEAD, HDIFF};

fn main() {
    app_support::main("hdiff", run);
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut o = Options::parse(RANKS)?;
    if o.prefetch != 0 {
        return Err("--prefetch is the baseline's: the rank kernel always asks for its next point's lines (see ranks::AHEAD)".into());
    }
    if o.batch != 1 {
        return Err(format!(
            "--batch {} is the baseline's: the rank kernel walks one point at a time (see ranks::hdiff)",
            o.batch
        )
        .into());
    }
    if o.chunk_given {
        return Err(format!(
            "--chunk {} is the baseline's: the rank kernel walks across its rows (see Order::Across)",
            o.chunk
        )
        .into());
    }
    // The report says what the rank kernel does.
    o.prefetch = AHEAD;
    o.across = true;
    let rt = Runtime::new()?;
    let ptx = dcuda::include_ptx!("hdiff_kernels");
    // A first load tells what fits; the last one has the options that the
    // ranks decide.
    let mut module = rt.load_with(&ptx, &o.load_options())?;
    let procs = rt.job().map_or(1, |j| j.processes());
    if !o.threads_given && o.units.is_none() {
        let fits = |threads| module.max_ranks(&HDIFF, threads).unwrap_or(0);
        o.threads = balanced_threads(o.ny / procs, fits);
    }
    let fit = app_support::ranks_that_fit(&module, &HDIFF, o.threads, o.max_registers)?;
    // By default as many ranks as fit, but no more than there are rows.
    let ranks = o.units.unwrap_or(fit.min(o.ny / procs).max(1));
    // ANCHOR: registers
    // Unless told, a thread gets the registers that the ranks an SM holds
    // leave it: three ranks of 256 threads run at 80, 6% faster than at
    // 64 at 128×320×26 on an H200
    // (`bench/results/2026-11-30-hdiff-spills-h200/3/`); and the loads are
    // cached by the rows a rank walks (`rank_caching`). The driver
    // compiles the PTX again for other options; if the ranks do not all
    // fit at the new cap, the cap stays.
    let first = o.clone();
    let rows_per_rank = o.ny.div_ceil(ranks.saturating_mul(procs));
    o.caching.get_or_insert(rank_caching(rows_per_rank));
    // The emulator has no registers or caches: one load serves.
    let device = rt.device_info();
    let gpu = device.backend == dcuda::Backend::Gpu;
    if !o.max_registers_given && gpu {
        let cap = app_support::registers_to_share(ranks, o.threads, device.multiprocessors);
        o.max_registers = o.max_registers.max(cap);
    }
    if gpu && o.load_options() != first.load_options() {
        module = rt.load_with(&ptx, &o.load_options())?;
        if module.max_ranks(&HDIFF, o.threads)? < ranks {
            o.max_registers = first.max_registers;
            module = rt.load_with(&ptx, &o.load_options())?;
        }
    }
    // ANCHOR_END: registers
    let config = RunConfig::new(o.threads).ranks(ranks);
    let info = module.rank_info(&HDIFF, &config)?;
    if info.rank_count > o.ny {
        return Err(format!(
            "{} ranks for {} rows: every rank needs a row (pass --ranks)",
            info.rank_count, o.ny
        )
        .into());
    }
    let band = Band::of_ranks(&o, info.first_rank, info.ranks_on_device, info.rank_count);
    let shape = band.shape();
    let initial = band.initial();
    let (a, b) = (rt.upload(&initial)?, rt.upload(&initial)?);
    let scratch = || rt.alloc::<f64>(shape.len());
    let (lap, flx, fly) = (scratch()?, scratch()?, scratch()?);
    let coeff = rt.upload(&band.coeff())?;
    let elapsed = rt.alloc::<u64>(1)?;
    let args = HdiffArgs {
        shape,
        a: a.slice(),
        b: b.slice(),
        work: Work {
            lap: lap.slice(),
            flx: flx.slice(),
            fly: fly.slice(),
            coeff: coeff.slice(),
        },
        ny: o.ny,
        iters: o.iters,
        elapsed: elapsed.slice(),
    };
    // SAFETY: every field has the band's shape; all outlive the run.
    unsafe { module.run(&HDIFF, &config, &args)? };

    let checked = if o.check {
        let result = if o.iters % 2 == 0 { &a } else { &b }.download()?;
        check(&o, &band, &result)?;
        "correct".to_string()
    } else {
        "not checked".to_string()
    };
    if info.first_rank != 0 {
        return Ok(());
    }
    let outcome = Outcome {
        run: Run::of_ranks(
            "hdiff",
            &rt,
            &info,
            elapsed.download()?[0] as f64 * 1e-9,
            checked,
        ),
        options: o.clone(),
    };
    print!("{}", outcome.render()?);
    Ok(())
}
