//! Pi with dcuda: every rank of every GPU sums its share of the intervals;
//! the block's `reduce`, then `reduce_to` world rank 0, combine them inside
//! one persistent kernel. Run alone or under `mpirun -np N` (one GPU a
//! process). Options: see `pi_kernels::host::Options`.

use app_support::report::Run;
use dcuda::{RunConfig, Runtime};
use pi_kernels::host::{check, Options, Outcome};
use pi_kernels::{PiArgs, PI};

fn main() {
    app_support::main("pi", run);
}

fn run() -> app_support::Res<()> {
    let o = Options::parse()?;
    let rt = Runtime::new()?;
    let module = rt.load_with(&dcuda::include_ptx!("pi_kernels"), &o.load_options())?;
    let fit = app_support::ranks_that_fit(&module, &PI, o.threads, o.max_registers)?;
    let config = RunConfig::new(o.threads).ranks(o.units.unwrap_or(fit));
    let info = module.rank_info(&PI, &config)?;
    let (result, elapsed) = (rt.alloc::<f64>(1)?, rt.alloc::<u64>(1)?);
    let args = PiArgs {
        intervals: o.intervals,
        iters: o.iters,
        result: result.slice(),
        elapsed: elapsed.slice(),
    };
    // SAFETY: `result` and `elapsed` hold one value each and outlive the run.
    unsafe { module.run(&PI, &config, &args)? };
    if info.first_rank != 0 {
        return Ok(()); // World rank 0's process has the result.
    }
    let pi = result.download()?[0];
    let checked = if o.check {
        check(pi, o.intervals)?;
        "correct"
    } else {
        "not checked"
    };
    let outcome = Outcome {
        run: Run::of_ranks(
            "pi",
            &rt,
            &info,
            elapsed.download()?[0] as f64 * 1e-9,
            checked,
        ),
        options: o.clone(),
        pi,
    };
    print!("{}", outcome.render()?);
    Ok(())
}
