//! Particle dynamics with dcuda: one persistent kernel per GPU, a rank per
//! slab of the box; particles that leave a slab and each slab's halo go to
//! the neighbours as notified puts of a count and records. Run alone or
//! under `mpirun -np N` (one GPU a process). Options: see
//! `particles_kernels::host::Options`.

use app_support::report::Run;
use app_support::{Job, Res};
use dcuda::{RunConfig, Runtime};
use particles_kernels::host::{
    self, check, domain, explain_error, max_slabs, reference, start, Arrays, Options, Outcome,
};
use particles_kernels::{ParticleArgs, PARTICLES};

fn main() {
    app_support::main("particles", run);
}

fn run() -> Res<()> {
    let o = Options::parse()?;
    let rt = Runtime::new()?;
    let module = rt.load_with(&dcuda::include_ptx!("particles_kernels"), &o.load_options())?;
    let fit = app_support::ranks_that_fit(&module, &PARTICLES, o.threads, o.max_registers)?;
    // By default as many ranks as fit, but no slab narrower than the cutoff.
    let procs = Job::of(&rt).procs as u32;
    let ranks = o.units.unwrap_or(fit.min((max_slabs(&o) / procs).max(1)));
    let config = RunConfig::new(o.threads).ranks(ranks);
    let info = module.rank_info(&PARTICLES, &config)?;
    let d = domain(&o, info.rank_count)?;
    let all = start(&o, &d);
    let (first, local) = (info.first_rank, info.ranks_on_device);
    let arrays = Arrays::new(&rt, &d, (first, local), &all)?;
    let (energies, totals) = (rt.alloc::<f64>(o.checks())?, rt.alloc::<u64>(o.checks())?);
    let elapsed = rt.alloc::<u64>(1)?;
    let args = ParticleArgs {
        domain: d,
        slabs: arrays.slabs(),
        steps: o.iters,
        every: o.every,
        energies: energies.slice(),
        totals: totals.slice(),
        elapsed: elapsed.slice(),
    };
    // SAFETY: the arrays are laid out for the process's ranks as the
    // domain says, the results hold a value per check; all outlive the run.
    unsafe { module.run(&PARTICLES, &config, &args) }.map_err(explain_error)?;

    let job = Job::of(&rt);
    let mine = arrays.particles(&d, o.iters as usize % 2)?;
    let (energies, totals) = if first == 0 {
        (energies.download()?, totals.download()?)
    } else {
        (Vec::new(), Vec::new())
    };
    let known = o.check.then(|| reference(&d, &all, o.iters, o.every));
    let result = host::Result {
        mine: &mine,
        slabs: (first, first + local),
        energies: &energies,
        totals: &totals,
    };
    let drift = check(&d, o.size, job, &result, known.as_ref())?;
    if first != 0 {
        return Ok(());
    }
    let outcome = Outcome {
        run: Run::new(
            "particles",
            &rt,
            (info.process_count, local, "ranks"),
            elapsed.download()?[0] as f64 * 1e-9,
            if o.check { "correct" } else { "conserved" },
        ),
        options: o.clone(),
        drift,
    };
    print!("{}", outcome.render()?);
    Ok(())
}
