//! Jacobi 2D, host-driven, as an MPI+CUDA programmer writes it: a kernel
//! per step (the same sweep as the dcuda version), the halos moved by the
//! host, the norm read back and combined by `MPI_Allreduce` in every
//! iteration. Two variants:
//! * default: step, then halo exchange, then the norm, in sequence;
//! * `--overlap`: the two boundary rows first on one stream, the interior
//!   on a second stream while the first exchanges the halos.
//!
//! One process a GPU; run alone or under `mpirun -np N`. Between processes
//! the halos go through the host (the installed OpenMPI is not
//! CUDA-aware): device to host, `MPI_Sendrecv`, host to device.

use app_support::report::Run;
use app_support::{clock_stamp, Direction, Job, Res, RowHalos};
use dcuda::{DeviceBuffer, LaunchConfig, Module, Runtime, Stream};
use jacobi_kernels::host::{check, Band, Defaults, Options, Outcome};
use jacobi_kernels::{Step, CLOCK_STAMP, JACOBI_STEP};

fn main() {
    app_support::main("jacobi_mpi", run);
}

/// The arrays, streams and staging of one process.
struct Solver<'a> {
    module: &'a Module,
    band: Band,
    blocks: u32,
    threads: u32,
    main: Stream,
    side: Stream,
    partials: DeviceBuffer<f32>,
    /// Where the partial norms are read back, every iteration.
    host_partials: Vec<f32>,
    halos: RowHalos<f32>,
}

impl Solver<'_> {
    /// Queues a step over rows `first..end` on `stream` with `blocks`
    /// blocks, their partial norms from `slot` on.
    fn step(
        &self,
        stream: &Stream,
        (old, new): (&DeviceBuffer<f32>, &DeviceBuffer<f32>),
        rows: (u32, u32),
        blocks: u32,
        slot: u32,
    ) -> Res<()> {
        let step = Step {
            old: old.slice(),
            new: new.slice(),
            nx: self.band.nx,
            first: rows.0,
            end: rows.1,
            partials: self.partials.slice(),
            slot,
        };
        let config = LaunchConfig::linear(blocks, self.threads);
        // SAFETY: the arrays hold the band and its halos, `partials` a slot
        // for every block; all outlive the stream's work (synchronised every
        // iteration); the rows of one launch are no other's.
        unsafe { stream.launch(self.module, &JACOBI_STEP, config, (step,))? };
        Ok(())
    }

    /// The halo exchange on `main`, once the boundary rows of `new` are
    /// queued: device copies for the periodic wrap on one process; between
    /// processes the rows go to pinned host memory, through MPI, and back.
    fn exchange(&mut self, new: &mut DeviceBuffer<f32>) -> Res<()> {
        let rows = self.band.rows() as usize;
        // SAFETY: `new` outlives the stream's work (each iteration ends
        // synchronised).
        unsafe { self.halos.exchange(&self.main, new, rows, Direction::Both) }
    }

    // ANCHOR: iterate
    /// One iteration; the sum of squared changes of this process.
    fn iterate(
        &mut self,
        old: &DeviceBuffer<f32>,
        new: &mut DeviceBuffer<f32>,
        overlap: bool,
    ) -> Res<f64> {
        let rows = self.band.rows();
        let b = self.blocks;
        if !overlap {
            self.step(&self.main, (old, new), (1, rows + 1), b, 0)?;
            self.exchange(new)?;
        } else {
            // Boundary rows first, on the stream that then exchanges them;
            // the interior meanwhile on the other.
            self.step(&self.main, (old, new), (1, 2), 1, b)?;
            if rows > 1 {
                self.step(&self.main, (old, new), (rows, rows + 1), 1, b + 1)?;
            }
            if rows > 2 {
                self.step(&self.side, (old, new), (2, rows), b, 0)?;
            }
            self.exchange(new)?;
            self.side.synchronize()?;
        }
        self.main.read(&self.partials, 0, &mut self.host_partials)?;
        Ok(self.host_partials.iter().map(|&p| p as f64).sum())
    }
    // ANCHOR_END: iterate
}

fn run() -> Res<()> {
    let o = Options::parse(Defaults::BLOCKS)?;
    let rt = Runtime::new()?;
    // No register cap: the cap is for the rank kernel (`--max-registers`);
    // under one, ptxas gave the step kernel more registers and fit half as
    // many blocks of 512 threads.
    let module = rt.load(&dcuda::include_ptx!("jacobi_kernels"))?;
    let job = Job::of(&rt);
    let blocks = match o.units {
        Some(n) => n,
        None => app_support::blocks_that_fit(&module, &JACOBI_STEP, o.threads)?,
    };
    let total = blocks * job.procs as u32;
    if total > o.rows() {
        return Err(format!(
            "{total} blocks for {} interior rows: every block needs a row (pass --ranks)",
            o.rows()
        )
        .into());
    }
    let band = Band::of_ranks(&o, job.me as u32 * blocks, blocks, total);
    let initial = band.initial();
    let (mut a, mut b) = (rt.upload(&initial)?, rt.upload(&initial)?);
    let nx = o.nx as usize;
    let mut solver = Solver {
        module: &module,
        band,
        blocks,
        threads: o.threads,
        main: rt.stream()?,
        side: rt.stream()?,
        partials: rt.alloc::<f32>(blocks as usize + 2)?,
        host_partials: vec![0.0; blocks as usize + 2],
        halos: RowHalos::new(&rt, job, nx)?,
    };
    let stamps = rt.alloc::<u64>(2)?;
    // SAFETY: `stamps` has two slots and outlives the stream's work.
    unsafe { clock_stamp(&solver.main, &module, &CLOCK_STAMP, &stamps, 0)? };
    let mut norms = Vec::with_capacity(o.iters as usize);
    for k in 0..o.iters {
        let local = if k % 2 == 0 {
            solver.iterate(&a, &mut b, o.overlap)?
        } else {
            solver.iterate(&b, &mut a, o.overlap)?
        };
        norms.push(job.allreduce(local, false)? as f32);
    }
    // SAFETY: as above.
    unsafe { clock_stamp(&solver.main, &module, &CLOCK_STAMP, &stamps, 1)? };
    let mut t = [0u64; 2];
    solver.main.read(&stamps, 0, &mut t)?;
    let seconds = job.allreduce((t[1] - t[0]) as f64 * 1e-9, true)?;

    let result = if o.iters % 2 == 0 { &a } else { &b }.download()?;
    let checked = if o.check {
        check(&band, &result, (job.me == 0).then_some(&norms[..]), o.iters)?;
        "correct".to_string()
    } else {
        "not checked".to_string()
    };
    if job.me != 0 {
        return Ok(());
    }
    let variant = if o.overlap {
        "jacobi_mpi --overlap"
    } else {
        "jacobi_mpi"
    };
    let outcome = Outcome {
        run: Run::of_blocks(variant, &rt, (job.procs as u32, blocks), seconds, checked),
        options: o.clone(),
        norm: (*norms.last().unwrap_or(&0.0) as f64).sqrt(),
    };
    print!("{}", outcome.render()?);
    Ok(())
}
