//! The Aliev–Panfilov model with dcuda: one persistent kernel per GPU, a
//! rank per block, each owning a tile; halos by notified puts. Run alone
//! or under `mpirun -np N` (one GPU a process). Options: see
//! `aliev_panfilov_kernels::host::Options`.

use aliev_panfilov_kernels::host::{check, initial, Options, Outcome, RANKS, RANKS_WALK};
use aliev_panfilov_kernels::{PanfilovArgs, Walking, ALIEV_PANFILOV};
use app_support::report::Run;
use dcuda::{RunConfig, Runtime};

fn main() {
    app_support::main("aliev_panfilov", run);
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut o = Options::parse(RANKS, RANKS_WALK)?;
    if o.ahead {
        return Err(
            "--ahead is the baseline's: the rank kernel always asks for its next chunk's lines"
                .into(),
        );
    }
    // The report says what the rank kernel does.
    o.ahead = true;
    if o.walking != Walking::Claims {
        // The stride walk stays the baseline's, to compare with.
        return Err("--walk stride is the baseline's: the rank kernel walks by claims".into());
    }
    let rt = Runtime::new()?;
    let module = rt.load_with(
        &dcuda::include_ptx!("aliev_panfilov_kernels"),
        &o.load_options(),
    )?;
    let fit = app_support::ranks_that_fit(&module, &ALIEV_PANFILOV, o.threads, o.max_registers)?;
    let procs = rt.job().map_or(1, |j| j.processes());
    let layout = o.layout(procs, o.units.unwrap_or(fit).min(fit))?;
    let config = RunConfig::new(o.threads).ranks(layout.ranks_per_process());
    let info = module.rank_info(&ALIEV_PANFILOV, &config)?;
    if info.rank_count != procs * layout.ranks_per_process() {
        return Err(format!(
            "{} ranks in the world, not {} a process: every process needs the same ranks",
            info.rank_count,
            layout.ranks_per_process()
        )
        .into());
    }
    let p = layout.process_of(layout.position(info.first_rank));
    let fields = layout.fields(p);
    let (e, r) = initial(&layout, p);
    let (a, b, r) = (rt.upload(&e)?, rt.upload(&e)?, rt.upload(&r)?);
    // Four columns a rank (two steps' west and east), each as long as the
    // tallest tile.
    let column_len = layout.tile((0, 0)).1 .1 - layout.tile((0, 0)).1 .0 + 1;
    let columns = 4 * column_len as usize * layout.ranks_per_process() as usize;
    let (received, packed) = (rt.alloc::<f64>(columns)?, rt.alloc::<f64>(columns)?);
    let elapsed = rt.alloc::<u64>(1)?;
    let args = PanfilovArgs {
        layout,
        fields,
        a: a.slice(),
        b: b.slice(),
        r: r.slice(),
        received: received.slice(),
        packed: packed.slice(),
        column_len,
        step: o.time_step(),
        iters: o.iters,
        elapsed: elapsed.slice(),
    };
    // SAFETY: every field has the process's shape, the column areas four
    // columns of `column_len` a rank; all outlive the run.
    unsafe { module.run(&ALIEV_PANFILOV, &config, &args)? };

    let checked = if o.check {
        let e = if o.iters % 2 == 0 { &a } else { &b }.download()?;
        check(&o, &layout, p, &e, &r.download()?)?;
        "correct".to_string()
    } else {
        "not checked".to_string()
    };
    if info.first_rank != 0 {
        return Ok(());
    }
    let outcome = Outcome {
        run: Run::new(
            "aliev_panfilov",
            &rt,
            (layout.processes(), layout.ranks_per_process(), "ranks"),
            elapsed.download()?[0] as f64 * 1e-9,
            checked,
        ),
        layout,
        options: o.clone(),
    };
    print!("{}", outcome.render()?);
    Ok(())
}
