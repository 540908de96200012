//! How one thread takes its points of a stage: the stride walk down a
//! band by chunks (the baseline's) and the walk across the band's rows (the
//! rank kernel's).

use super::mirror::{BandMirror, Mirror};
use super::Shape;
use dcuda_device::arch;

/// One thread's walk over the points of a stage, in the [`Order`] it
/// says, asking for the lines of points ahead if told.
#[derive(Clone, Copy, Debug)]
pub struct Walk {
    /// This thread.
    pub thread: usize,
    /// Threads of the rank or block.
    pub threads: usize,
    /// Which points the thread takes, in which order: a constant where a
    /// kernel is built, so that the other order is not compiled in.
    pub order: Order,
    /// How many of its points ahead a thread asks for the lines a point's
    /// stencil reads (into L1, `prefetch.L1`), before loading the current
    /// one; 0: none. Loads in flight that hold no register: a rank of 1024
    /// threads at 64 registers has fewer warps an SM than a kernel of
    /// small blocks, and a batch costs it registers.
    pub prefetch: u32,
    /// A row also stored at a neighbour's halo row ([`Mirror`]).
    pub mirror: Mirror,
}

/// The order of a [`Walk`].
#[derive(Clone, Copy, Debug)]
pub enum Order {
    /// Thread `thread` of `threads` takes every `threads`-th point of a
    /// row, so that a warp reads consecutive points, and loads `batch`
    /// points (1, 2, 4 or 8) before it stores any. Stores could alias the
    /// loads, so the compiler would not move loads above them itself; a
    /// batch keeps more loads in flight, which a rank kernel's low
    /// occupancy needs and a full GPU of blocks may not (more registers).
    ///
    /// A band of several rows is walked `chunk` points of a row at a time
    /// (0: whole rows), down all its rows, before the next `chunk` points:
    /// a stencil reads the rows beside a point, and a row read again one
    /// whole row later has left the L2 cache when a hundred bands stream at
    /// once (a row is 128 KiB a field at 512 × 32). Within a chunk the rows
    /// were read a chunk ago. The baseline's order.
    Down {
        /// Points loaded before they are stored.
        batch: u32,
        /// Points of a row walked down the band's rows at a time.
        chunk: u32,
    },
    /// The warps walk across the band's rows, one point a thread at a
    /// time (see `across`). The rank kernel's order: 0.8–3.3% faster
    /// than down by chunks at 512×1280×32 on an H200, 1.4–2.4% slower at
    /// 128×320×26, where a rank has a row and the two orders take the
    /// same points in the same order with more arithmetic a point
    /// (`bench/results/2026-11-30-hdiff-across-rows-h200/`, `…-h200x2/`).
    /// With the column stepped by additions instead of a remainder it
    /// gained 0.8% and 4.8% more
    /// (`bench/results/2026-11-30-hdiff-column-steps-h200/`).
    Across,
}

/// Runs the stencil `load` (`c` the index in the fields, `x` the column)
/// for this thread's points of rows `rows` whose column is in `xs`, and
/// `store` with each result, as `walk` says. `ahead(c)` names the `L`
/// lines the stencil at `c` reads, for `walk.prefetch`, each once (a
/// prefetch is a memory instruction).
#[inline(always)]
pub(super) fn each_point<V: Copy + Default, const L: usize>(
    shape: Shape,
    rows: (usize, usize),
    xs: (u32, u32),
    walk: Walk,
    (load, ahead): (impl Fn(usize, u32) -> V, impl Fn(usize) -> [*const f64; L]),
    (store, also): (impl FnMut(usize, u32, V), impl FnMut(*mut f64, u32, V)),
) {
    let fns = (load, ahead);
    let (batch, chunk) = match walk.order {
        Order::Across => return across(shape, rows, xs, walk, fns, (store, also)),
        Order::Down { batch, chunk } => (batch, chunk),
    };
    match batch {
        1 => batched::<V, 1, L>(shape, rows, xs, (walk, chunk), fns, store),
        2 => batched::<V, 2, L>(shape, rows, xs, (walk, chunk), fns, store),
        4 => batched::<V, 4, L>(shape, rows, xs, (walk, chunk), fns, store),
        _ => batched::<V, 8, L>(shape, rows, xs, (walk, chunk), fns, store),
    }
}

// ANCHOR: walk
#[inline(always)]
fn batched<V: Copy + Default, const B: usize, const L: usize>(
    shape: Shape,
    rows: (usize, usize),
    xs: (u32, u32),
    (
        Walk {
            thread,
            threads,
            prefetch,
            mirror,
            ..
        },
        chunk,
    ): (Walk, u32),
    (load, ahead): (impl Fn(usize, u32) -> V, impl Fn(usize) -> [*const f64; L]),
    mut store: impl FnMut(usize, u32, V),
) {
    let w = shape.width();
    // The baseline's walk: its halos are the host's to move.
    assert!(!mirror.is_some(), "hdiff: the walk down stores no mirror");
    // A chunk of 0 known at compile time leaves the loop of rows alone.
    let chunk = if chunk == 0 { w } else { chunk as usize };
    let mut from = 0;
    while from < w {
        let to = w.min(from + chunk);
        let mut j = rows.0;
        while j < rows.1 {
            let mut e = from + thread;
            while e < to {
                let next = e + prefetch as usize * B * threads;
                if prefetch != 0 && next < to {
                    for p in ahead(j * w + next) {
                        // SAFETY: the lines of a point of the band, which
                        // the stencil reads later.
                        unsafe { arch::prefetch_l1(p) }
                    }
                }
                let mut points = [(0usize, 0u32, false, V::default()); B];
                for (k, p) in points.iter_mut().enumerate() {
                    let at = e + k * threads;
                    // A remainder, not `across`'s steps: those took the
                    // default kernel from 32 to 44 registers, 4–22% slower
                    // (`bench/results/2026-11-30-hdiff-column-steps-h200/`).
                    let x = at as u32 % shape.nx;
                    if at < to && x >= xs.0 && x < xs.1 {
                        *p = (j * w + at, x, true, load(j * w + at, x));
                    }
                }
                for (c, x, live, v) in points {
                    if live {
                        store(c, x, v);
                    }
                }
                e += B * threads;
            }
            j += 1;
        }
        from = to;
    }
}
// ANCHOR_END: walk

// ANCHOR: across
/// The walk across a band's rows, one point a thread at a time: the band
/// is tasks of 32 consecutive points of a row, numbered across the rows
/// first (task `k`: row `k % rows`, points `32 · (k / rows)` on), and
/// warp `v` of `V` takes tasks `v`, `v + V`, …. A rank's warps then read
/// the rows beside a point at about the same time, and a band's edge rows
/// when the neighbouring band does; and one loop walks the band, where the
/// walk down by chunks reloaded its row bounds from the stack at each row
/// (at the 64 registers of a rank of 1024 threads). With one row it is
/// the stride walk. Threads must be whole warps (ranks are).
#[inline(always)]
fn across<V: Copy + Default, const L: usize>(
    shape: Shape,
    rows: (usize, usize),
    xs: (u32, u32),
    walk: Walk,
    (load, ahead): (impl Fn(usize, u32) -> V, impl Fn(usize) -> [*const f64; L]),
    (mut store, mut also): (impl FnMut(usize, u32, V), impl FnMut(*mut f64, u32, V)),
) {
    let w = shape.width();
    let band = rows.1 - rows.0;
    if band == 0 {
        return;
    }
    let mirror = BandMirror::new(walk.mirror, rows, w);
    let (warp, lane, warps) = (walk.thread / 32, walk.thread % 32, walk.threads / 32);
    // A task is its row within the band, its first point in the row (32
    // bits: a row is under 2^31 points, `check` says so), its first
    // element, and this thread's column: stepped `warps` tasks at a time
    // by additions, the column too (a remainder a point cost the loop a
    // sixth of its instructions).
    let (band32, w32, nx) = (band as u32, w as u32, shape.nx);
    let (step_row, step_at) = ((warps % band) as u32, (warps / band * 32) as u32);
    let step = step_row as usize * w + step_at as usize;
    let wrap = 32usize.wrapping_sub(band * w);
    // Each below `nx`, so a column stays below it with one subtraction
    // (`nx` ≤ 2^31: no overflow).
    let (step_x, wrap_x) = (step_at % nx, 32 % nx);
    let below_nx = |x: u32| if x >= nx { x - nx } else { x };
    let next = |(r, a, c, x): (u32, u32, usize, u32)| {
        let (r, a, c, x) = (
            r + step_row,
            a + step_at,
            c.wrapping_add(step),
            below_nx(x + step_x),
        );
        if r >= band32 {
            (
                r - band32,
                a + 32,
                c.wrapping_add(wrap),
                below_nx(x + wrap_x),
            )
        } else {
            (r, a, c, x)
        }
    };
    let first = ((warp % band) as u32, (warp / band * 32) as u32);
    let lane32 = lane as u32;
    let mut task = (
        first.0,
        first.1,
        (rows.0 + first.0 as usize) * w + first.1 as usize,
        (first.1 + lane32) % nx,
    );
    while task.1 < w32 {
        let ahead_task = next(task);
        if walk.prefetch != 0 && ahead_task.1 + lane32 < w32 {
            for p in ahead(ahead_task.2 + lane) {
                // SAFETY: the lines of a point of the band, which the
                // stencil reads later.
                unsafe { arch::prefetch_l1(p) }
            }
        }
        let (at, c, x) = (task.1 + lane32, task.2 + lane, task.3);
        if at < w32 && x >= xs.0 && x < xs.1 {
            let v = load(c, x);
            // SAFETY: as the stencil's caller promised; `at` is in the row.
            unsafe { mirror.store((task.0, at as usize), (c, x, v), (&mut store, &mut also)) };
        }
        task = ahead_task;
    }
}
// ANCHOR_END: across

#[cfg(test)]
mod tests;
