//! Sparse matrix–vector products and power iteration, host-driven, as an
//! MPI+CUDA programmer writes them: a kernel per product (the same rows as
//! the dcuda version), the entries other processes read copied to the
//! host, exchanged with `MPI_Isend`/`MPI_Irecv` and copied back, and power
//! iteration's norm read back and combined by `MPI_Allreduce`. Two
//! variants:
//! * default: product, then exchange, in sequence;
//! * `--overlap`: the rows other processes read first, on the stream that
//!   then exchanges them, and the interior rows meanwhile on a second
//!   stream.
//!
//! One process a GPU; run alone or under `mpirun -np N`.

use app_support::report::Run;
use app_support::{clock_stamp, Job, Res};
use dcuda::{DeviceBuffer, LaunchConfig, Module, Runtime, Stream};
use spmv_kernels::host::{check, Defaults, Matrix, Options, Outcome};
use spmv_kernels::{overlap, reach, split, Csr, Step, CLOCK_STAMP, SPMV_STEP};

fn main() {
    app_support::main("spmv_mpi", run);
}

/// What one process exchanges with another: the global rows it sends and
/// those it receives (either may be empty).
struct Peer {
    process: i32,
    send: (u32, u32),
    recv: (u32, u32),
}

/// The matrix, vectors, streams and exchange plan of one process.
struct Solver<'a> {
    module: &'a Module,
    job: Job,
    matrix: Csr,
    base: u32,
    rows: u32,
    band: u32,
    blocks: u32,
    threads: u32,
    main: Stream,
    side: Stream,
    partials: DeviceBuffer<f64>,
    host_partials: Vec<f64>,
    peers: Vec<Peer>,
}

impl Solver<'_> {
    /// Queues the product of rows `range` (counted from the process's
    /// first) on `stream` with `blocks` blocks, partials from `slot` on.
    fn step(
        &self,
        stream: &Stream,
        (x, y): (&DeviceBuffer<f64>, &DeviceBuffer<f64>),
        range: (u32, u32),
        (blocks, slot): (u32, u32),
        scale: f64,
    ) -> Res<()> {
        let step = Step {
            matrix: self.matrix,
            x: x.slice(),
            y: y.slice(),
            base: self.base,
            first: range.0,
            end: range.1,
            scale,
            partials: self.partials.slice(),
            slot,
        };
        let config = LaunchConfig::linear(blocks, self.threads);
        // SAFETY: the matrix is well formed, the vectors hold all rows,
        // `partials` a slot for every block; all outlive the stream's work
        // (synchronised every product); one launch's rows are no other's.
        unsafe { stream.launch(self.module, &SPMV_STEP, config, (step,))? };
        Ok(())
    }

    /// The exchange on `main`, after the rows others read are queued: each
    /// peer's rows copied to the host, sent and received, and copied in.
    fn exchange(&self, y: &mut DeviceBuffer<f64>) -> Res<()> {
        let len = |r: (u32, u32)| r.1.saturating_sub(r.0) as usize;
        let mut out: Vec<Vec<f64>> = Vec::new();
        for p in &self.peers {
            let mut buf = vec![0.0; len(p.send)];
            self.main.read(y, p.send.0 as usize, &mut buf)?;
            out.push(buf);
        }
        let mut inb: Vec<Vec<f64>> = self.peers.iter().map(|p| vec![0.0; len(p.recv)]).collect();
        let sends: Vec<(i32, &[f64])> = self
            .peers
            .iter()
            .zip(&out)
            .map(|(p, b)| (p.process, &b[..]))
            .collect();
        let mut recvs: Vec<(i32, &mut [f64])> = self
            .peers
            .iter()
            .zip(&mut inb)
            .map(|(p, b)| (p.process, &mut b[..]))
            .collect();
        self.job.exchange(&sends, &mut recvs)?;
        for (p, buf) in self.peers.iter().zip(&inb) {
            self.main.write(y, p.recv.0 as usize, buf)?;
        }
        Ok(())
    }

    // ANCHOR: product
    /// One product; this process's sum of squares.
    fn product(
        &mut self,
        x: &DeviceBuffer<f64>,
        y: &mut DeviceBuffer<f64>,
        scale: f64,
        overlapped: bool,
    ) -> Res<f64> {
        let (rows, b, band) = (self.rows, self.blocks, self.band);
        let edge = if self.peers.is_empty() {
            0
        } else {
            band.min(rows / 2)
        };
        if !overlapped || edge == 0 {
            self.step(&self.main, (x, y), (0, rows), (b, 0), scale)?;
            self.exchange(y)?;
        } else {
            // The rows others read first, on the stream that then sends
            // them; the interior meanwhile on the other.
            self.step(&self.main, (x, y), (0, edge), (1, b), scale)?;
            self.step(&self.main, (x, y), (rows - edge, rows), (1, b + 1), scale)?;
            if rows > 2 * edge {
                self.step(&self.side, (x, y), (edge, rows - edge), (b, 0), scale)?;
            }
            self.exchange(y)?;
            self.side.synchronize()?;
        }
        self.main.read(&self.partials, 0, &mut self.host_partials)?;
        Ok(self.host_partials.iter().sum())
    }
    // ANCHOR_END: product
}

fn run() -> Res<()> {
    let o = Options::parse(Defaults::BLOCKS)?;
    let m = Matrix::of(&o);
    let rt = Runtime::new()?;
    let module = rt.load(&dcuda::include_ptx!("spmv_kernels"))?;
    let job = Job::of(&rt);
    let blocks = match o.units {
        Some(n) => n,
        None => app_support::blocks_that_fit(&module, &SPMV_STEP, o.threads)?,
    };
    let total = blocks * job.procs as u32;
    if total > m.n {
        return Err(format!(
            "{total} blocks for {} rows: every block needs a row (pass --ranks)",
            m.n
        )
        .into());
    }
    // A process's rows: its blocks', split over all blocks as the dcuda
    // version splits them over ranks.
    let range = |p: u32| {
        (
            split(m.n, total, p * blocks).0,
            split(m.n, total, (p + 1) * blocks - 1).1,
        )
    };
    let me = job.me as u32;
    let mine = range(me);
    let band = m.band();
    let peers = (0..job.procs as u32)
        .filter(|&p| p != me)
        .map(|p| Peer {
            process: p as i32,
            send: overlap(mine, reach(range(p), band, m.n)),
            recv: overlap(range(p), reach(mine, band, m.n)),
        })
        .filter(|p| p.send.0 < p.send.1 || p.recv.0 < p.recv.1)
        .collect();
    let csr = m.rows(mine)?;
    let (row_ptr, cols, vals) = (
        rt.upload(&csr.row_ptr)?,
        rt.upload(&csr.cols)?,
        rt.upload(&csr.vals)?,
    );
    let ones = vec![1.0f64; m.n as usize];
    let (mut a, mut b) = (rt.upload(&ones)?, rt.upload(&ones)?);
    let mut solver = Solver {
        module: &module,
        job,
        matrix: Csr {
            row_ptr: row_ptr.slice(),
            cols: cols.slice(),
            vals: vals.slice(),
        },
        base: mine.0,
        rows: mine.1 - mine.0,
        band,
        blocks,
        threads: o.threads,
        main: rt.stream()?,
        side: rt.stream()?,
        partials: rt.alloc::<f64>(blocks as usize + 2)?,
        host_partials: vec![0.0; blocks as usize + 2],
        peers,
    };
    let stamps = rt.alloc::<u64>(2)?;
    // SAFETY: `stamps` has two slots and outlives the stream's work.
    unsafe { clock_stamp(&solver.main, &module, &CLOCK_STAMP, &stamps, 0)? };
    let mut scale = o.scale(&m);
    let (mut norms, mut last) = (Vec::new(), 0.0);
    let mut products = 0;
    while products < o.iters {
        let k = products;
        let squares = if k % 2 == 0 {
            solver.product(&a, &mut b, scale, o.overlap)?
        } else {
            solver.product(&b, &mut a, scale, o.overlap)?
        };
        products += 1;
        if o.power {
            let norm = job.allreduce(squares, false)?.sqrt();
            norms.push(norm);
            scale = 1.0 / norm;
            if k > 0 && (norm - last).abs() <= o.tol * norm {
                break;
            }
            last = norm;
        }
    }
    // SAFETY: as above.
    unsafe { clock_stamp(&solver.main, &module, &CLOCK_STAMP, &stamps, 1)? };
    let mut t = [0u64; 2];
    solver.main.read(&stamps, 0, &mut t)?;
    let seconds = job.allreduce((t[1] - t[0]) as f64 * 1e-9, true)?;

    let x = if products.is_multiple_of(2) { &a } else { &b }.download()?;
    let part = &x[mine.0 as usize..mine.1 as usize];
    let checked = if o.check {
        let known = (job.me == 0 && o.power).then_some(&norms[..]);
        check(&m, &o, (mine, part), known, products)?;
        "correct"
    } else {
        "not checked"
    };
    let squares = job.allreduce(part.iter().map(|v| v * v).sum(), false)?;
    if job.me != 0 {
        return Ok(());
    }
    let variant = if o.overlap {
        "spmv_mpi --overlap"
    } else {
        "spmv_mpi"
    };
    let outcome = Outcome {
        run: Run::of_blocks(variant, &rt, (job.procs as u32, blocks), seconds, checked),
        options: o.clone(),
        matrix: m,
        products,
        norm: if o.power {
            *norms.last().unwrap_or(&0.0)
        } else {
            squares.sqrt()
        },
    };
    print!("{}", outcome.render()?);
    Ok(())
}
