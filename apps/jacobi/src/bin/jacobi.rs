//! Jacobi 2D with dcuda: one persistent kernel per GPU, a rank per block,
//! halos by notified puts, the norm by `allreduce` in every iteration.
//! Run alone or under `mpirun -np N` (one GPU a process). Options: see
//! `jacobi_kernels::host::Options`.

use app_support::report::Run;
use dcuda::{RunConfig, Runtime};
use jacobi_kernels::host::{check, Band, Defaults, Options, Outcome};
use jacobi_kernels::{JacobiArgs, JACOBI};

fn main() {
    app_support::main("jacobi", run);
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let o = Options::parse(Defaults::RANKS)?;
    let rt = Runtime::new()?;
    let module = rt.load_with(&dcuda::include_ptx!("jacobi_kernels"), &o.load_options())?;
    let fit = app_support::ranks_that_fit(&module, &JACOBI, o.threads, o.max_registers)?;
    let config = RunConfig::new(o.threads).ranks(o.units.unwrap_or(fit));
    let info = module.rank_info(&JACOBI, &config)?;
    if info.rank_count > o.rows() {
        return Err(format!(
            "{} ranks for {} interior rows: every rank needs a row (pass --ranks)",
            info.rank_count,
            o.rows()
        )
        .into());
    }
    let band = Band::of_ranks(&o, info.first_rank, info.ranks_on_device, info.rank_count);
    let initial = band.initial();
    let (a, b) = (rt.upload(&initial)?, rt.upload(&initial)?);
    let norms = rt.alloc::<f32>(o.iters.max(1) as usize)?;
    let elapsed = rt.alloc::<u64>(1)?;
    let args = JacobiArgs {
        a: a.slice(),
        b: b.slice(),
        nx: o.nx,
        rows: o.rows(),
        iters: o.iters,
        norms: norms.slice(),
        elapsed: elapsed.slice(),
    };
    // SAFETY: the arrays have the band's rows and halos, `norms` one value
    // per iteration; all outlive the run.
    unsafe { module.run(&JACOBI, &config, &args)? };

    let result = if o.iters % 2 == 0 { &a } else { &b }.download()?;
    let norms = norms.download()?;
    let checked = if !o.check {
        "not checked".to_string()
    } else {
        // Only world rank 0 has the norms; every process checks its rows.
        let mine = (info.first_rank == 0).then_some(&norms[..o.iters as usize]);
        check(&band, &result, mine, o.iters)?;
        "correct".to_string()
    };
    if info.first_rank != 0 {
        return Ok(());
    }
    let outcome = Outcome {
        run: Run::of_ranks(
            "jacobi",
            &rt,
            &info,
            elapsed.download()?[0] as f64 * 1e-9,
            checked,
        ),
        options: o.clone(),
        norm: (norms[o.iters.max(1) as usize - 1] as f64).sqrt(),
    };
    print!("{}", outcome.render()?);
    Ok(())
}
