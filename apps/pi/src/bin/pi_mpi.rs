//! Pi, host-driven, as an MPI+CUDA programmer writes it: a kernel per
//! integration (the same sum as the dcuda version) whose blocks write
//! their sums, read back by the host, added, and combined across processes
//! by `MPI_Allreduce`. There is no overlapped variant: each integration's
//! one reduction needs all of its sum, so nothing is left to overlap it
//! with but the next integration, which only repeats the same work.
//!
//! One process a GPU; run alone or under `mpirun -np N`.

use app_support::report::Run;
use app_support::{clock_stamp, Job, Res};
use dcuda::{LaunchConfig, Runtime};
use pi_kernels::host::{check, Options, Outcome};
use pi_kernels::{split, CLOCK_STAMP, PI_BLOCKS};

fn main() {
    app_support::main("pi_mpi", run);
}

fn run() -> Res<()> {
    let o = Options::parse()?;
    let rt = Runtime::new()?;
    let module = rt.load(&dcuda::include_ptx!("pi_kernels"))?;
    let job = Job::of(&rt);
    let blocks = match o.units {
        Some(n) => n,
        None => app_support::blocks_that_fit(&module, &PI_BLOCKS, o.threads)?,
    };
    // The process's intervals: those of its blocks, split over all blocks
    // of the job as the dcuda version splits them over ranks.
    let total = blocks * job.procs as u32;
    let me = job.me as u32;
    let first = split(o.intervals, total, me * blocks).0;
    let end = split(o.intervals, total, (me + 1) * blocks - 1).1;
    let partials = rt.alloc::<f64>(blocks as usize)?;
    let mut host_partials = vec![0.0f64; blocks as usize];
    let stream = rt.stream()?;
    let stamps = rt.alloc::<u64>(2)?;
    // SAFETY: `stamps` has two slots and outlives the stream's work.
    unsafe { clock_stamp(&stream, &module, &CLOCK_STAMP, &stamps, 0)? };
    let mut pi = 0.0;
    // ANCHOR: loop
    for _ in 0..o.iters {
        let config = LaunchConfig::linear(blocks, o.threads);
        let args = (o.intervals, first, end, partials.slice());
        // SAFETY: `partials` has a slot per block and outlives the stream's
        // work (read back, and so synchronised, every integration).
        unsafe { stream.launch(&module, &PI_BLOCKS, config, args)? };
        stream.read(&partials, 0, &mut host_partials)?;
        let local: f64 = host_partials.iter().sum();
        pi = job.allreduce(local, false)? / o.intervals as f64;
    }
    // ANCHOR_END: loop
    // SAFETY: as above.
    unsafe { clock_stamp(&stream, &module, &CLOCK_STAMP, &stamps, 1)? };
    let mut t = [0u64; 2];
    stream.read(&stamps, 0, &mut t)?;
    let seconds = job.allreduce((t[1] - t[0]) as f64 * 1e-9, true)?;
    if job.me != 0 {
        return Ok(());
    }
    let checked = if o.check {
        check(pi, o.intervals)?;
        "correct"
    } else {
        "not checked"
    };
    let outcome = Outcome {
        run: Run::of_blocks("pi_mpi", &rt, (job.procs as u32, blocks), seconds, checked),
        options: o.clone(),
        pi,
    };
    print!("{}", outcome.render()?);
    Ok(())
}
