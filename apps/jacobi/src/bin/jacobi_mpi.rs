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

use dcuda::{DeviceBuffer, LaunchConfig, MappedBuffer, Module, Runtime, Stream};
use jacobi_kernels::host::{check, Band, Defaults, Options, Outcome};
use jacobi_kernels::{Step, CLOCK_STAMP, JACOBI_STEP};
use std::ffi::c_void;

fn main() {
    dcuda::log::init(); // dcuda's messages to standard error (DCUDA_LOG filters)
    if let Err(e) = run() {
        eprintln!("jacobi_mpi: {e}");
        std::process::exit(1);
    }
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// This process's place in the job.
#[derive(Clone, Copy)]
struct Job {
    me: i32,
    procs: i32,
}

fn mpi_check(call: &str, code: i32) -> Res<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(format!("{call} failed with MPI error code {code}").into())
    }
}

impl Job {
    /// Sends `send` to process `to` and receives `recv` from `from`.
    fn sendrecv(&self, send: &[f32], to: i32, recv: &mut [f32], from: i32) -> Res<()> {
        // SAFETY: MPI is initialised (the runtime did it for the job); the
        // buffers hold the counts given.
        let code = unsafe {
            mpi_sys::MPI_Sendrecv(
                send.as_ptr() as *const c_void,
                send.len() as i32,
                mpi_sys::RSMPI_FLOAT,
                to,
                0,
                recv.as_mut_ptr() as *mut c_void,
                recv.len() as i32,
                mpi_sys::RSMPI_FLOAT,
                from,
                0,
                mpi_sys::RSMPI_COMM_WORLD,
                mpi_sys::RSMPI_STATUS_IGNORE,
            )
        };
        mpi_check("MPI_Sendrecv", code)
    }

    /// `value` summed over the processes, or their maximum with `max`
    /// (`MPI_Allreduce`).
    fn allreduce(&self, value: f64, max: bool) -> Res<f64> {
        if self.procs == 1 {
            return Ok(value);
        }
        let mut out = 0.0f64;
        // SAFETY: as above; one double in, one out.
        let code = unsafe {
            let op = if max {
                mpi_sys::RSMPI_MAX
            } else {
                mpi_sys::RSMPI_SUM
            };
            mpi_sys::MPI_Allreduce(
                &value as *const f64 as *const c_void,
                &mut out as *mut f64 as *mut c_void,
                1,
                mpi_sys::RSMPI_DOUBLE,
                op,
                mpi_sys::RSMPI_COMM_WORLD,
            )
        };
        mpi_check("MPI_Allreduce", code)?;
        Ok(out)
    }
}

/// The arrays, streams and staging of one process.
struct Solver<'a> {
    module: &'a Module,
    job: Job,
    band: Band,
    blocks: u32,
    threads: u32,
    main: Stream,
    side: Stream,
    partials: DeviceBuffer<f32>,
    /// Where the partial norms are read back, every iteration.
    host_partials: Vec<f32>,
    /// Pinned host memory for the halos between processes: the rows to
    /// send up and down, then the rows received from above and below.
    staging: MappedBuffer<f32>,
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
        let (nx, rows) = (self.band.nx as usize, self.band.rows() as usize);
        let (first, last, top, bottom) = (nx, rows * nx, 0, (rows + 1) * nx);
        if self.job.procs == 1 {
            // SAFETY: rows of `new`, which outlives the stream's work; no
            // kernel touches the halos while the copies run.
            unsafe {
                self.main.copy(new, top, new, last..last + nx)?;
                self.main.copy(new, bottom, new, first..first + nx)?;
            }
            return Ok(());
        }
        let Job { me, procs } = self.job;
        let (above, below) = ((me + procs - 1) % procs, (me + 1) % procs);
        let s = &self.staging;
        // SAFETY: `new` and the staging outlive the copies; the host reads
        // the staging only after the synchronisation.
        unsafe {
            self.main.copy_to_mapped(s, 0, new, first..first + nx)?;
            self.main.copy_to_mapped(s, nx, new, last..last + nx)?;
        }
        self.main.synchronize()?;
        // SAFETY: no device work touches the staging between the
        // synchronisation above and the copies below; four disjoint rows.
        let [send_up, send_down, from_above, from_below] = std::array::from_fn(|k| unsafe {
            std::slice::from_raw_parts_mut(s.host_ptr().add(k * nx), nx)
        });
        self.job.sendrecv(send_up, above, from_below, below)?;
        self.job.sendrecv(send_down, below, from_above, above)?;
        // SAFETY: as above; the next step on `main` runs after these copies,
        // and the iteration ends by synchronising `main`.
        unsafe {
            self.main.copy_from_mapped(new, top, s, 2 * nx..3 * nx)?;
            self.main.copy_from_mapped(new, bottom, s, 3 * nx..4 * nx)?;
        }
        Ok(())
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
    let job = rt
        .job()
        .map(|j| Job {
            me: j.process() as i32,
            procs: j.processes() as i32,
        })
        .unwrap_or(Job { me: 0, procs: 1 });
    let blocks = match o.units {
        Some(n) => n,
        None => module.max_coresident_blocks(&JACOBI_STEP, o.threads, 0)?,
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
        job,
        band,
        blocks,
        threads: o.threads,
        main: rt.stream()?,
        side: rt.stream()?,
        partials: rt.alloc::<f32>(blocks as usize + 2)?,
        host_partials: vec![0.0; blocks as usize + 2],
        staging: rt.alloc_mapped::<f32>(4 * nx)?,
    };
    let stamps = rt.alloc::<u64>(2)?;
    // SAFETY: `stamps` has two slots and outlives the stream's work.
    unsafe { stamp(&solver.main, &module, &stamps, 0)? };
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
    unsafe { stamp(&solver.main, &module, &stamps, 1)? };
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
        program: variant.into(),
        backend: format!("{:?}", rt.backend()).to_lowercase(),
        processes: job.procs as u32,
        units: blocks,
        unit: "blocks",
        options: o.clone(),
        seconds,
        norm: (*norms.last().unwrap_or(&0.0) as f64).sqrt(),
        checked,
    };
    print!("{}", outcome.render()?);
    Ok(())
}

/// Queues a device-clock stamp into `stamps[at]` on `stream`.
///
/// # Safety
/// `stamps` outlives the stream's work.
unsafe fn stamp(stream: &Stream, module: &Module, stamps: &DeviceBuffer<u64>, at: u32) -> Res<()> {
    stream.launch(
        module,
        &CLOCK_STAMP,
        LaunchConfig::linear(1, 1),
        (stamps.slice(), at),
    )?;
    Ok(())
}
