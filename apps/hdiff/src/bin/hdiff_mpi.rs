//! Horizontal diffusion, host-driven, as an MPI+CUDA programmer writes it:
//! a kernel per stage (the same stencils as the dcuda version), the halo
//! row each stage needs moved by the host after the stage before. Two
//! variants:
//! * default: each stage, then its halo exchange, in sequence;
//! * `--overlap`: each stage's two boundary rows first on one stream, which
//!   then exchanges them, the interior meanwhile on a second stream.
//!
//! One process a GPU; run alone or under `mpirun -np N`. Between processes
//! the halos go through pinned host memory and `MPI_Sendrecv` (the
//! installed OpenMPI is not CUDA-aware).

use app_support::report::Run;
use app_support::{clock_stamp, Direction, Job, Res, RowHalos};
use dcuda::Kernel;
use dcuda::{DeviceBuffer, LaunchConfig, Module, Runtime, Stream};
use hdiff_kernels::host::{check, Band, Options, Outcome, BLOCKS, BLOCK_CACHING};
use hdiff_kernels::{
    Shape, Stage, StageArgs, Work, CLOCK_STAMP, HDIFF_BANDS_1, HDIFF_BANDS_1P, HDIFF_BANDS_2,
    HDIFF_BANDS_2P, HDIFF_BANDS_4, HDIFF_BANDS_8, HDIFF_STAGE_1, HDIFF_STAGE_1P, HDIFF_STAGE_2,
    HDIFF_STAGE_2P, HDIFF_STAGE_4, HDIFF_STAGE_8,
};

fn main() {
    app_support::main("hdiff_mpi", run);
}

/// Which field a stage's halo exchange moves.
enum Halo {
    Laplacian,
    Flux,
    Output,
}

/// The fields, streams and staging of one process.
struct Solver<'a> {
    module: &'a Module,
    shape: Shape,
    blocks: u32,
    threads: u32,
    kernel: &'static Kernel<(StageArgs,)>,
    chunk: u32,
    prefetch: u32,
    main: Stream,
    side: Stream,
    lap: DeviceBuffer<f64>,
    flx: DeviceBuffer<f64>,
    fly: DeviceBuffer<f64>,
    coeff: DeviceBuffer<f64>,
    halos: RowHalos<f64>,
}

impl Solver<'_> {
    /// Queues `stage` over rows `first..end` on `stream` with `blocks`
    /// blocks.
    fn launch(
        &self,
        stream: &Stream,
        stage: Stage,
        (inp, out): (&DeviceBuffer<f64>, &DeviceBuffer<f64>),
        rows: (u32, u32),
        blocks: u32,
    ) -> Res<()> {
        let args = StageArgs {
            shape: self.shape,
            inp: inp.slice(),
            work: Work {
                lap: self.lap.slice(),
                flx: self.flx.slice(),
                fly: self.fly.slice(),
                coeff: self.coeff.slice(),
            },
            out: out.slice(),
            stage: stage as u32,
            first: rows.0,
            end: rows.1,
            chunk: self.chunk,
            prefetch: self.prefetch,
        };
        let config = LaunchConfig::linear(blocks, self.threads);
        // SAFETY: every field has the process's shape and outlives the
        // stream's work (each iteration ends synchronised); the rows of one
        // launch are no other's, and a stage is queued after the stage and
        // the halos it reads.
        unsafe { stream.launch(self.module, self.kernel, config, (args,))? };
        Ok(())
    }

    /// One stage over the process's rows, then the halo exchange of
    /// `halo` on `main`. Without overlap all in sequence on `main`; with
    /// it the boundary rows on `main`, which then exchanges them, and the
    /// interior meanwhile on `side`. Each stream first waits (on the
    /// device) for the other's part of the stage before.
    fn stage(
        &self,
        stage: Stage,
        fields: (&DeviceBuffer<f64>, &DeviceBuffer<f64>),
        halo: (Halo, Direction),
        overlap: bool,
    ) -> Res<()> {
        let rows = self.shape.rows - 2;
        if !overlap {
            self.launch(&self.main, stage, fields, (1, rows + 1), self.blocks)?;
        } else {
            self.main.wait_for(&self.side)?;
            self.side.wait_for(&self.main)?;
            self.launch(&self.main, stage, fields, (1, 2), 1)?;
            if rows > 1 {
                self.launch(&self.main, stage, fields, (rows, rows + 1), 1)?;
            }
            if rows > 2 {
                self.launch(&self.side, stage, fields, (2, rows), self.blocks)?;
            }
        }
        let field = match halo.0 {
            Halo::Laplacian => &self.lap,
            Halo::Flux => &self.fly,
            Halo::Output => fields.1,
        };
        // SAFETY: the fields outlive the streams' work (the program
        // synchronises before it drops them).
        unsafe {
            self.halos
                .exchange(&self.main, field, rows as usize, halo.1)
        }
    }

    // ANCHOR: iterate
    /// One iteration: each stage, then the halo row the next stage needs
    /// (the Laplacian's from below, the y flux's from above, the output's
    /// from both sides).
    fn iterate(&self, inp: &DeviceBuffer<f64>, out: &DeviceBuffer<f64>, overlap: bool) -> Res<()> {
        let fields = (inp, out);
        self.stage(
            Stage::Laplacian,
            fields,
            (Halo::Laplacian, Direction::Up),
            overlap,
        )?;
        self.stage(
            Stage::Fluxes,
            fields,
            (Halo::Flux, Direction::Down),
            overlap,
        )?;
        self.stage(
            Stage::Output,
            fields,
            (Halo::Output, Direction::Both),
            overlap,
        )
    }
    // ANCHOR_END: iterate
}

fn run() -> Res<()> {
    let mut o = Options::parse(BLOCKS)?;
    if o.prefetch != 0 && o.batch > 2 {
        return Err(format!(
            "--prefetch {} needs --batch 1 or 2 (got --batch {}): only those kernels ask ahead",
            o.prefetch, o.batch
        )
        .into());
    }
    let rt = Runtime::new()?;
    // No register cap: the cap is for the rank kernel (`--max-registers`).
    let caching = *o.caching.get_or_insert(BLOCK_CACHING);
    let module = rt.load_with(
        &dcuda::include_ptx!("hdiff_kernels"),
        &dcuda::LoadOptions::default().caching(caching),
    )?;
    let job = Job::of(&rt);
    let blocks = match o.units {
        Some(n) => n,
        // As many as fit at once, but no more than there are rows.
        None => app_support::blocks_that_fit(
            &module,
            stage_kernel(o.batch, false, o.prefetch),
            o.threads,
        )?
        .min(o.ny / job.procs as u32)
        .max(1),
    };
    // Blocks of more than a row walk them by chunks (unless --chunk 0).
    let kernel = stage_kernel(
        o.batch,
        o.chunk != 0 && blocks * (job.procs as u32) < o.ny,
        o.prefetch,
    );
    let total = blocks * job.procs as u32;
    if total > o.ny {
        return Err(format!(
            "{total} blocks for {} rows: every block needs a row (pass --ranks)",
            o.ny
        )
        .into());
    }
    let band = Band::of_ranks(&o, job.me as u32 * blocks, blocks, total);
    let shape = band.shape();
    let initial = band.initial();
    let (a, b) = (rt.upload(&initial)?, rt.upload(&initial)?);
    let solver = Solver {
        module: &module,
        shape,
        blocks,
        threads: o.threads,
        kernel,
        chunk: o.chunk,
        prefetch: o.prefetch,
        main: rt.stream()?,
        side: rt.stream()?,
        lap: rt.alloc::<f64>(shape.len())?,
        flx: rt.alloc::<f64>(shape.len())?,
        fly: rt.alloc::<f64>(shape.len())?,
        coeff: rt.upload(&band.coeff())?,
        halos: RowHalos::new(&rt, job, o.width())?,
    };
    let stamps = rt.alloc::<u64>(2)?;
    // SAFETY: `stamps` has two slots and outlives the stream's work.
    unsafe { clock_stamp(&solver.main, &module, &CLOCK_STAMP, &stamps, 0)? };
    for k in 0..o.iters {
        if k % 2 == 0 {
            solver.iterate(&a, &b, o.overlap)?;
        } else {
            solver.iterate(&b, &a, o.overlap)?;
        }
    }
    solver.main.wait_for(&solver.side)?;
    // SAFETY: as above.
    unsafe { clock_stamp(&solver.main, &module, &CLOCK_STAMP, &stamps, 1)? };
    let mut t = [0u64; 2];
    solver.main.read(&stamps, 0, &mut t)?;
    let seconds = job.allreduce((t[1] - t[0]) as f64 * 1e-9, true)?;

    let checked = if o.check {
        let result = if o.iters % 2 == 0 { &a } else { &b }.download()?;
        check(&o, &band, &result)?;
        "correct".to_string()
    } else {
        "not checked".to_string()
    };
    if job.me != 0 {
        return Ok(());
    }
    let outcome = Outcome {
        run: Run::of_blocks(
            if o.overlap {
                "hdiff_mpi --overlap"
            } else {
                "hdiff_mpi"
            },
            &rt,
            (job.procs as u32, blocks),
            seconds,
            checked,
        ),
        options: o.clone(),
    };
    print!("{}", outcome.render()?);
    Ok(())
}

/// The stage kernel of `batch` points, walking its bands by chunks if
/// `chunked`.
fn stage_kernel(batch: u32, chunked: bool, prefetch: u32) -> &'static Kernel<(StageArgs,)> {
    match (batch, chunked) {
        (1, false) if prefetch > 0 => &HDIFF_STAGE_1P,
        (2, false) if prefetch > 0 => &HDIFF_STAGE_2P,
        (1, true) if prefetch > 0 => &HDIFF_BANDS_1P,
        (2, true) if prefetch > 0 => &HDIFF_BANDS_2P,
        (1, false) => &HDIFF_STAGE_1,
        (2, false) => &HDIFF_STAGE_2,
        (4, false) => &HDIFF_STAGE_4,
        (_, false) => &HDIFF_STAGE_8,
        (1, true) => &HDIFF_BANDS_1,
        (2, true) => &HDIFF_BANDS_2,
        (4, true) => &HDIFF_BANDS_4,
        (_, true) => &HDIFF_BANDS_8,
    }
}
