//! Particle dynamics, host-driven, as an MPI+CUDA programmer writes it:
//! the same phases as the dcuda version in four kernels a step, a block
//! per slab; the messages of the process's edge slabs copied to the host,
//! exchanged with `MPI_Isend`/`MPI_Irecv` and copied to the neighbours'
//! ghost regions. Two variants:
//! * default: each phase, then its exchange, in sequence;
//! * `--overlap`: the own forces on a second stream during the halo's
//!   exchange.
//!
//! One process a GPU; run alone or under `mpirun -np N`.

use app_support::report::Run;
use app_support::{clock_stamp, Job, Res};
use dcuda::{DeviceBuffer, Kernel, LaunchConfig, Module, Runtime, Stream};
use particles_kernels::compute::{
    Domain, COUNTERS, HALO_LEFT, HALO_RIGHT, KEPT, MOVED_LEFT, MOVED_RIGHT, REC, REGIONS,
};
use particles_kernels::host::{
    self, check, domain, explain, max_slabs, reference, start, Arrays, Options, Outcome,
};
use particles_kernels::{
    Phase, CLOCK_STAMP, HALO_FORCES_BLOCKS, MOVE_IN, MOVE_OUT, OWN_FORCES_BLOCKS,
};

fn main() {
    app_support::main("particles_mpi", run);
}

/// One process's slabs, streams and exchange buffers.
struct Baseline<'a> {
    module: &'a Module,
    job: Job,
    d: Domain,
    arrays: Arrays,
    first: u32,
    blocks: u32,
    threads: u32,
    overlap: bool,
    step: u32,
    main: Stream,
    side: Stream,
    ghosts: DeviceBuffer<f64>,
    partials: DeviceBuffer<f64>,
    status: DeviceBuffer<u32>,
}

impl Baseline<'_> {
    fn launch(&self, stream: &Stream, kernel: &Kernel<(Phase,)>, at: usize, half: f64) -> Res<()> {
        let step = self.step;
        let phase = Phase {
            domain: self.d,
            slabs: self.arrays.slabs(),
            first: self.first,
            alone: (self.job.procs == 1) as u32,
            at: at as u32,
            half,
            step,
            ghosts: self.ghosts.slice(),
            partials: self.partials.slice(),
            status: self.status.slice(),
        };
        let config = LaunchConfig::linear(self.blocks, self.threads);
        // SAFETY: the arrays are laid out for the process's blocks, a slab
        // each; the phases are queued in order (the own forces beside the
        // halo's exchange only, which does not touch what they use).
        unsafe { stream.launch(self.module, kernel, config, (phase,))? };
        Ok(())
    }

    // ANCHOR: exchange
    /// The edge slabs' messages `(towards the left, towards the right)` to
    /// the processes beside this one, and theirs into the ghost regions.
    fn exchange(&mut self, (to_left, to_right): (usize, usize)) -> Res<()> {
        if self.job.procs == 1 {
            return Ok(());
        }
        let len = self.d.region_len();
        let message = |slab: u32, r: usize| -> Res<Vec<f64>> {
            let at = (slab as usize * REGIONS + r) * len;
            let mut count = [0.0f64];
            self.main.read(&self.arrays.outbox, at, &mut count)?;
            let mut msg = vec![0.0; 1 + count[0] as usize * REC];
            self.main.read(&self.arrays.outbox, at, &mut msg)?;
            Ok(msg)
        };
        let (left_msg, right_msg) = (message(0, to_left)?, message(self.blocks - 1, to_right)?);
        let (left, right) = self.job.neighbours();
        let (mut from_right, mut from_left) = (vec![0.0; len], vec![0.0; len]);
        let sends = [(left, 0, &left_msg[..]), (right, 1, &right_msg[..])];
        let mut recvs = [
            (right, 0, &mut from_right[..]),
            (left, 1, &mut from_left[..]),
        ];
        self.job.exchange_tagged(&sends, &mut recvs)?;
        // The ghosts are laid out as an inbox: region `to_left` holds what
        // came from the left.
        for (msg, ghost) in [(&from_left, to_left), (&from_right, to_right)] {
            let n = 1 + msg[0] as usize * REC;
            self.main.write(&mut self.ghosts, ghost * len, &msg[..n])?;
        }
        Ok(())
    }
    // ANCHOR_END: exchange

    /// The forces at `at`'s places and the kick by `half`: the own forces,
    /// beside the halo's exchange with `--overlap`, then the halo's.
    fn forces(&mut self, at: usize, half: f64) -> Res<()> {
        if self.overlap && self.job.procs > 1 {
            self.side.wait_for(&self.main)?;
            self.launch(&self.side, &OWN_FORCES_BLOCKS, at, half)?;
            self.exchange((HALO_LEFT, HALO_RIGHT))?;
            self.main.wait_for(&self.side)?;
        } else {
            self.launch(&self.main, &OWN_FORCES_BLOCKS, at, half)?;
            self.exchange((HALO_LEFT, HALO_RIGHT))?;
        }
        self.launch(&self.main, &HALO_FORCES_BLOCKS, at, half)
    }

    /// The job's energy and particles, after reporting any block's error.
    fn totals(&self) -> Res<(f64, u64)> {
        let mut status = vec![0u32; self.status.len()];
        self.main.read(&self.status, 0, &mut status)?;
        if let Some(e) = status.chunks(4).find(|e| e[0] != 0) {
            let values = [e[1] as u64, e[2] as u64, e[3] as u64];
            return Err(format!("process {}: {}", self.job.me, explain(e[0], values)).into());
        }
        let mut partials = vec![0.0; self.partials.len()];
        self.main.read(&self.partials, 0, &mut partials)?;
        let mut counts = vec![0u32; self.blocks as usize];
        self.main.read(&self.arrays.counts, 0, &mut counts)?;
        let energy = self.job.allreduce(partials.iter().sum(), false)?;
        let count = self
            .job
            .allreduce(counts.iter().map(|&c| c as f64).sum(), false)?;
        Ok((energy, count as u64))
    }
}

fn run() -> Res<()> {
    let o = Options::parse()?;
    let rt = Runtime::new()?;
    let module = rt.load(&dcuda::include_ptx!("particles_kernels"))?;
    let job = Job::of(&rt);
    let blocks = match o.units {
        Some(n) => n,
        // As many as fit, but no slab narrower than the cutoff.
        None => app_support::blocks_that_fit(&module, &HALO_FORCES_BLOCKS, o.threads)?
            .min((max_slabs(&o) / job.procs as u32).max(1)),
    };
    let d = domain(&o, blocks * job.procs as u32)?;
    let all = start(&o, &d);
    let first = job.me as u32 * blocks;
    let mut arrays = Arrays::new(&rt, &d, (first, blocks), &all)?;
    // The first halo goes out from `MOVE_IN` with nothing moved: every
    // slab keeps what it has.
    let counts = arrays.counts.download()?;
    let mut counters = vec![0u32; blocks as usize * COUNTERS];
    for (b, c) in counts.iter().enumerate() {
        counters[b * COUNTERS + KEPT] = *c;
    }
    arrays.counters.copy_from(&counters)?;
    let mut base = Baseline {
        module: &module,
        job,
        d,
        arrays,
        first,
        blocks,
        threads: o.threads,
        overlap: o.overlap,
        step: 0,
        main: rt.stream()?,
        side: rt.stream()?,
        ghosts: rt.alloc(REGIONS * d.region_len())?,
        partials: rt.alloc(2 * blocks as usize)?,
        status: rt.alloc(4 * blocks as usize)?,
    };
    let stamps = rt.alloc::<u64>(2)?;
    // SAFETY: `stamps` has two slots and outlives the stream's work.
    unsafe { clock_stamp(&base.main, &module, &CLOCK_STAMP, &stamps, 0)? };
    let (mut energies, mut totals) = (Vec::new(), Vec::new());
    let mut at = 0usize;
    base.launch(&base.main, &MOVE_IN, 1, 0.0)?;
    base.forces(at, 0.0)?;
    let half = 0.5 * d.dt;
    for step in 0..=o.iters {
        if step > 0 {
            base.step = step;
            base.launch(&base.main, &MOVE_OUT, at, half)?;
            base.exchange((MOVED_LEFT, MOVED_RIGHT))?;
            base.launch(&base.main, &MOVE_IN, at, half)?;
            at = 1 - at;
            base.forces(at, half)?;
        }
        if step % o.every == 0 || step == o.iters {
            let (e, n) = base.totals()?;
            energies.push(e);
            totals.push(n);
        }
    }
    // SAFETY: as above.
    unsafe { clock_stamp(&base.main, &module, &CLOCK_STAMP, &stamps, 1)? };
    let mut t = [0u64; 2];
    base.main.read(&stamps, 0, &mut t)?;
    let seconds = base.job.allreduce((t[1] - t[0]) as f64 * 1e-9, true)?;

    let mine = base.arrays.particles(&d, at)?;
    let known = o.check.then(|| reference(&d, &all, o.iters, o.every));
    let me = base.job.me;
    let (energies, totals) = if me == 0 {
        (energies, totals)
    } else {
        (Vec::new(), Vec::new())
    };
    let result = host::Result {
        mine: &mine,
        slabs: (first, first + blocks),
        energies: &energies,
        totals: &totals,
    };
    let drift = check(&d, o.size, base.job, &result, known.as_ref())?;
    if me != 0 {
        return Ok(());
    }
    let variant = if o.overlap {
        "particles_mpi --overlap"
    } else {
        "particles_mpi"
    };
    let outcome = Outcome {
        run: Run::of_blocks(
            variant,
            &rt,
            (base.job.procs as u32, blocks),
            seconds,
            if o.check { "correct" } else { "conserved" },
        ),
        options: o.clone(),
        drift,
    };
    print!("{}", outcome.render()?);
    Ok(())
}
