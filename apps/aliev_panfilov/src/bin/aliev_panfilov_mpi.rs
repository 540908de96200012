//! The Aliev–Panfilov model, host-driven, as an MPI+CUDA programmer writes
//! it: a kernel per time step (the same step as the dcuda version), the
//! halos moved by the host after it; columns packed by a kernel, rows as
//! they are, through pinned host memory and `MPI_Sendrecv` (the installed
//! OpenMPI is not CUDA-aware). Two variants:
//! * default: the step, then the halo exchange, in sequence;
//! * `--overlap`: the boundary strips first on one stream, which then
//!   exchanges them, the interior meanwhile on a second stream.
//!
//! One process a GPU, processes in a grid (`--procs-x`); run alone or under
//! `mpirun -np N`.

use aliev_panfilov_kernels::host::{check, initial, Options, Outcome, BLOCKS, BLOCKS_WALK};
use aliev_panfilov_kernels::{
    Fields, Layout, Rect, StepArgs, Walking, CLOCK_STAMP, PANFILOV_CLAIMED, PANFILOV_CLAIMED_AHEAD,
    PANFILOV_COLUMN, PANFILOV_STEP_1, PANFILOV_STEP_2, PANFILOV_STEP_4, PANFILOV_STEP_8,
};
use app_support::report::Run;
use app_support::{clock_stamp, Job, Res};
use dcuda::Kernel;
use dcuda::{DeviceBuffer, LaunchConfig, MappedBuffer, Module, Runtime, Stream};

fn main() {
    app_support::main("aliev_panfilov_mpi", run);
}

/// The sides of a process's part, in the order of the staging slots.
const NORTH: usize = 0;
const SOUTH: usize = 1;
const WEST: usize = 2;
const EAST: usize = 3;

/// The fields, streams and staging of one process.
struct Solver<'a> {
    module: &'a Module,
    opts: &'a Options,
    job: Job,
    fields: Fields,
    /// The neighbouring processes, by side.
    near: [Option<i32>; 4],
    blocks: u32,
    main: Stream,
    side: Stream,
    r: DeviceBuffer<f64>,
    /// Packed columns: west and east to send, then as received.
    columns: DeviceBuffer<f64>,
    /// Pinned host memory: a halo of each side to send, then one of each
    /// received, each `slot` long.
    staging: MappedBuffer<f64>,
    slot: usize,
}

impl Solver<'_> {
    /// Queues a step over `rect` on `stream` with `blocks` blocks.
    fn launch(
        &self,
        stream: &Stream,
        (old, new): (&DeviceBuffer<f64>, &DeviceBuffer<f64>),
        rect: Rect,
        blocks: u32,
    ) -> Res<()> {
        if rect.height() == 0 || rect.width() == 0 {
            return Ok(());
        }
        let args = StepArgs {
            fields: self.fields,
            old: old.slice(),
            new: new.slice(),
            r: self.r.slice(),
            rect,
            step: self.opts.time_step(),
        };
        let config = LaunchConfig::linear(blocks.min(rect.height()), self.opts.threads);
        // SAFETY: every field has the process's shape and outlives the
        // streams' work (the program synchronises before dropping them);
        // the rectangles of one step are disjoint, and a step is queued
        // after the work it reads.
        unsafe { stream.launch(self.module, step_kernel(self.opts), config, (args,))? };
        Ok(())
    }

    /// Queues the packing (`pack`) or unpacking of column `col` of `field`
    /// to or from packed slot `slot` on `main`.
    fn column(&self, field: &DeviceBuffer<f64>, col: u32, slot: usize, pack: bool) -> Res<()> {
        let h = self.fields.height as usize;
        let column = self.columns.slice().slice(slot * h..(slot + 1) * h);
        let args = (self.fields, field.slice(), col, column, pack as u32);
        // SAFETY: as in `launch`; the slot holds a column.
        unsafe {
            self.main.launch(
                self.module,
                &PANFILOV_COLUMN,
                LaunchConfig::linear(1, 256),
                args,
            )?
        };
        Ok(())
    }

    /// The halo exchange of `new` on `main`, once its boundary is queued.
    fn exchange(&self, new: &DeviceBuffer<f64>) -> Res<()> {
        if self.near.iter().all(Option::is_none) {
            return Ok(());
        }
        let (w, h, p) = (
            self.fields.width as usize,
            self.fields.height as usize,
            self.fields.pitch(),
        );
        let (s, n) = (&self.staging, self.slot);
        let row = |j: usize| j * p + 1..j * p + 1 + w;
        // SAFETY (the copies): `new`, the packed columns and the staging
        // outlive them; the host reads the staging after synchronising and
        // writes it before queuing the copies back.
        unsafe {
            for (side, col, from) in [(WEST, 1, 0), (EAST, w as u32, 1)] {
                if self.near[side].is_some() {
                    self.column(new, col, from, true)?;
                    self.main.copy_to_mapped(
                        s,
                        side * n,
                        &self.columns,
                        from * h..(from + 1) * h,
                    )?;
                }
            }
            for (side, j) in [(NORTH, 1), (SOUTH, h)] {
                if self.near[side].is_some() {
                    self.main.copy_to_mapped(s, side * n, new, row(j))?;
                }
            }
        }
        self.main.synchronize()?;
        // SAFETY: no device work touches the staging now; disjoint slots.
        let part = |slot: usize, len: usize| unsafe {
            std::slice::from_raw_parts_mut(s.host_ptr().add(slot * n), len)
        };
        // Each side's halo to that neighbour; the one from the opposite
        // side back.
        for (to, from, len) in [
            (NORTH, SOUTH, w),
            (SOUTH, NORTH, w),
            (WEST, EAST, h),
            (EAST, WEST, h),
        ] {
            let recv = part(4 + from, len);
            self.job
                .sendrecv(part(to, len), self.near[to], recv, self.near[from])?;
        }
        unsafe {
            for (side, j) in [(NORTH, 0), (SOUTH, h + 1)] {
                if self.near[side].is_some() {
                    self.main.copy_from_mapped(
                        new,
                        row(j).start,
                        s,
                        (4 + side) * n..(4 + side) * n + w,
                    )?;
                }
            }
            for (side, col, into) in [(WEST, 0, 2), (EAST, w as u32 + 1, 3)] {
                if self.near[side].is_some() {
                    self.main.copy_from_mapped(
                        &self.columns,
                        into * h,
                        s,
                        (4 + side) * n..(4 + side) * n + h,
                    )?;
                    self.column(new, col, into, false)?;
                }
            }
        }
        Ok(())
    }

    // ANCHOR: iterate
    /// One time step: without overlap the whole part, then the exchange;
    /// with it the boundary strips on `main`, which then exchanges them,
    /// the interior on `side`; each stream first waits (on the device) for
    /// the other's part of the step before.
    fn iterate(&self, fields: (&DeviceBuffer<f64>, &DeviceBuffer<f64>), overlap: bool) -> Res<()> {
        let all = self.fields.interior();
        let (w, h) = (all.x1, all.y1); // one past the last column and row
        if !overlap || w < 4 || h < 4 {
            self.launch(&self.main, fields, all, self.blocks)?;
        } else {
            self.main.wait_for(&self.side)?;
            self.side.wait_for(&self.main)?;
            let strips = [
                Rect { y1: 2, ..all },
                Rect { y0: h - 1, ..all },
                Rect {
                    y0: 2,
                    y1: h - 1,
                    x1: 2,
                    ..all
                },
                Rect {
                    y0: 2,
                    y1: h - 1,
                    x0: w - 1,
                    ..all
                },
            ];
            for strip in strips {
                self.launch(&self.main, fields, strip, 1)?;
            }
            let interior = Rect {
                y0: 2,
                y1: h - 1,
                x0: 2,
                x1: w - 1,
            };
            self.launch(&self.side, fields, interior, self.blocks)?;
        }
        self.exchange(fields.1)
    }
    // ANCHOR_END: iterate
}

fn run() -> Res<()> {
    let o = Options::parse(BLOCKS, BLOCKS_WALK)?;
    let rt = Runtime::new()?;
    // `--max-registers` is the rank kernel's. The claims kernel calls its
    // walk out of line, and ptxas, not told the block's size, gives the
    // call more registers than a block of `--threads` has: cap them as
    // `__launch_bounds__` would. The stride kernels fit uncapped.
    let ptx = dcuda::include_ptx!("aliev_panfilov_kernels");
    let module = match o.walking {
        Walking::Claims => {
            let cap = (65536 / o.threads).min(255);
            rt.load_with(&ptx, &dcuda::LoadOptions::default().max_registers(cap))?
        }
        Walking::Stride => rt.load(&ptx)?,
    };
    let job = Job::of(&rt);
    let blocks = match o.units {
        Some(n) => n,
        None => app_support::blocks_that_fit(&module, step_kernel(&o), o.threads)?,
    };
    // The processes' grid as the dcuda version's; one "rank" a process.
    let layout: Layout = Options {
        ranks_x: Some(1),
        ..o.clone()
    }
    .layout(job.procs as u32, 1)?;
    let me = layout.process_of(layout.position(job.me as u32));
    let fields = layout.fields(me);
    let at = |(x, y): (i64, i64)| {
        let inside = x >= 0 && y >= 0 && x < layout.procs_x as i64 && y < layout.procs_y as i64;
        inside.then(|| layout.rank_at((x as u32, y as u32)) as i32)
    };
    let (x, y) = (me.0 as i64, me.1 as i64);
    let (e, r) = initial(&layout, me);
    let (a, b) = (rt.upload(&e)?, rt.upload(&e)?);
    let slot = fields.width.max(fields.height) as usize;
    let solver = Solver {
        module: &module,
        opts: &o,
        job,
        fields,
        near: [
            at((x, y - 1)),
            at((x, y + 1)),
            at((x - 1, y)),
            at((x + 1, y)),
        ],
        blocks,
        main: rt.stream()?,
        side: rt.stream()?,
        r: rt.upload(&r)?,
        columns: rt.alloc::<f64>(4 * fields.height as usize)?,
        staging: rt.alloc_mapped::<f64>(8 * slot)?,
        slot,
    };
    let stamps = rt.alloc::<u64>(2)?;
    // SAFETY: `stamps` has two slots and outlives the stream's work.
    unsafe { clock_stamp(&solver.main, &module, &CLOCK_STAMP, &stamps, 0)? };
    for k in 0..o.iters {
        let fields = if k % 2 == 0 { (&a, &b) } else { (&b, &a) };
        solver.iterate(fields, o.overlap)?;
    }
    solver.main.wait_for(&solver.side)?;
    // SAFETY: as above.
    unsafe { clock_stamp(&solver.main, &module, &CLOCK_STAMP, &stamps, 1)? };
    let mut t = [0u64; 2];
    solver.main.read(&stamps, 0, &mut t)?;
    let seconds = job.allreduce((t[1] - t[0]) as f64 * 1e-9, true)?;

    let checked = if o.check {
        let e = if o.iters % 2 == 0 { &a } else { &b }.download()?;
        check(&o, &layout, me, &e, &solver.r.download()?)?;
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
                "aliev_panfilov_mpi --overlap"
            } else {
                "aliev_panfilov_mpi"
            },
            &rt,
            (layout.processes(), blocks),
            seconds,
            checked,
        ),
        layout: Layout {
            ranks_x: blocks,
            ranks_y: 1,
            ..layout
        },
        options: o.clone(),
    };
    print!("{}", outcome.render()?);
    Ok(())
}

/// The step kernel of the walk and batch chosen.
fn step_kernel(o: &Options) -> &'static Kernel<(StepArgs,)> {
    if o.walking == Walking::Claims {
        return if o.ahead {
            &PANFILOV_CLAIMED_AHEAD
        } else {
            &PANFILOV_CLAIMED
        };
    }
    match o.batch {
        1 => &PANFILOV_STEP_1,
        2 => &PANFILOV_STEP_2,
        4 => &PANFILOV_STEP_4,
        _ => &PANFILOV_STEP_8,
    }
}
