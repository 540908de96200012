//! The dcuda version: one persistent kernel, a rank per block, each rank
//! owning a tile of the grid. Within a GPU the tiles share the process's
//! fields, so a halo needs only a notification; between GPUs rows go by
//! notified puts and columns packed.

use crate::compute::{copy_column, TimeStep};
use crate::layout::{Fields, Layout};
use crate::mirror::{has_mirrors, mirror_ghosts};
use crate::walk::{step_claimed, Claims};
use dcuda_device::{rank, shared_array, DeviceSlice, Max, Rank, Window};

shared_array!(static RANK_CLAIMS: [u32; 32]);

/// Arguments of [`aliev_panfilov`](ALIEV_PANFILOV).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PanfilovArgs {
    /// The decomposition.
    pub layout: Layout,
    /// This process's fields' shape.
    pub fields: Fields,
    /// The excitation, old and new by turns: both hold the initial state;
    /// the result is in `a` after an even number of steps, in `b` after an
    /// odd one.
    pub a: DeviceSlice<f64>,
    /// See `a`.
    pub b: DeviceSlice<f64>,
    /// The recovery variable, updated in place.
    pub r: DeviceSlice<f64>,
    /// Columns received from other processes: for each rank of the
    /// process, two steps' (by parity) west and east columns of
    /// `column_len` each.
    pub received: DeviceSlice<f64>,
    /// Columns packed to send, in the same arrangement.
    pub packed: DeviceSlice<f64>,
    /// The longest column a tile has.
    pub column_len: u32,
    /// The time step.
    pub step: TimeStep,
    /// Steps.
    pub iters: u32,
    /// Written by world rank 0: the nanoseconds of the steps, the longest
    /// of any rank's device clock from the barrier before them to the
    /// barrier after them.
    pub elapsed: DeviceSlice<u64>,
}

/// A rank's neighbours on the grid of tiles, if any: north, south, west,
/// east.
fn neighbours(layout: &Layout, (gx, gy): (u32, u32)) -> [Option<(u32, u32)>; 4] {
    let (wx, wy) = layout.world();
    [
        (gy > 0).then(|| (gx, gy - 1)),
        (gy + 1 < wy).then(|| (gx, gy + 1)),
        (gx > 0).then(|| (gx - 1, gy)),
        (gx + 1 < wx).then(|| (gx + 1, gy)),
    ]
}

/// Packs column `col`, rows `rows`, of `new` into `out` with every
/// thread and puts it to `at` in rank `target`'s part of `columns`, with
/// notification `tag`. Out of line: on one GPU no rank calls it, and
/// inlined in the step loop it made those steps 1.3% slower at 2048² and
/// 3.0% at 4096² (H200, `bench/results/2026-11-29-cold-paths-h200/`).
#[inline(never)]
fn pack_put(
    rank: &mut Rank,
    (fields, new, col, rows, out): (Fields, DeviceSlice<f64>, u32, (u32, u32), DeviceSlice<f64>),
    (columns, target, at, tag): (Window<f64>, u32, usize, u32),
) {
    let threads = rank.threads_per_rank() as usize;
    rank.threads(|t| unsafe {
        // SAFETY: this step's slot of the rank's own packing area; the put
        // two steps ago is done (its target answered since).
        copy_column(
            fields,
            new,
            (col, rows),
            out,
            true,
            (t.index() as usize, threads),
        )
    });
    rank.put_notify(columns, target, at, out, tag);
}

// ANCHOR: ranks
#[rank]
pub fn aliev_panfilov(rank: &mut Rank, args: &PanfilovArgs) {
    let world = rank.world();
    let me = world.rank();
    let (layout, fields) = (args.layout, args.fields);
    let at = layout.position(me);
    let rect = layout.rect(at);
    let process = layout.process_of(at);
    let p = fields.pitch();
    let near = neighbours(&layout, at);
    let count = near.iter().filter(|n| n.is_some()).count() as u32;

    // A rank's state windows are its rows and the ghost rows around them,
    // the fields' whole width; its column window, its received columns.
    let (y0, y1) = (rect.y0 as usize, rect.y1 as usize);
    let window = |f: DeviceSlice<f64>| f.slice((y0 - 1) * p..(y1 + 1) * p);
    let states = [
        rank.win_create(world, window(args.a)),
        rank.win_create(world, window(args.b)),
    ];
    let len = args.column_len as usize;
    let local = rank.device().rank() as usize;
    let mine = |f: DeviceSlice<f64>| f.slice(local * 4 * len..(local + 1) * 4 * len);
    let (received, packed) = (mine(args.received), mine(args.packed));
    let columns = rank.win_create(world, received);
    let slot = |parity: usize, east: bool| (2 * parity + east as usize) * len;
    let threads = rank.threads_per_rank() as usize;
    let (x0, x1) = (rect.x0 as usize, rect.x1 as usize);
    let mirrors = has_mirrors(&fields, &rect);
    let inner = Fields { edges: 0, ..fields };

    // Who gets what each step, worked out once: the loop's uniform code
    // runs on every thread of the rank, and finding a neighbour's rank,
    // process and rows takes divisions (traced on an H200: 1.6-2.5 µs
    // between two notifications when done in the loop).
    let mut here = [0u32; 4];
    let mut nearby = 0;
    // Rows to another process: (target, the row sent, where it goes).
    let mut rows_out = [(0u32, 0usize, 0usize); 2];
    let mut rows_n = 0;
    // Columns to and from another process: (target, east).
    let mut columns_out = [(0u32, false); 2];
    let mut columns_n = 0;
    for (side, n) in near.iter().enumerate() {
        let Some(n) = *n else { continue };
        let target = layout.rank_at(n);
        if layout.process_of(n) == process {
            here[nearby] = target;
            nearby += 1;
        } else if side < 2 {
            // The first row to the north's bottom ghost row, the last to
            // the south's top ghost row.
            rows_out[rows_n] = if side == 0 {
                (target, y0, (layout.rect(n).height() as usize + 1) * p)
            } else {
                (target, y1 - 1, 0)
            };
            rows_n += 1;
        } else {
            columns_out[columns_n] = (target, side == 3);
            columns_n += 1;
        }
    }

    // The claims' counters start at 0 (the barrier below orders this).
    rank.threads(|t| {
        if t.index() < 32 {
            RANK_CLAIMS.set(t.index() as usize, 0);
        }
    });
    rank.barrier(world);
    let started = rank.timestamp();
    for k in 0..args.iters {
        let (old, new) = if k % 2 == 0 {
            (args.a, args.b)
        } else {
            (args.b, args.a)
        };
        let parity = (k % 2) as usize;
        rank.trace("compute", |rank| {
            // SAFETY: the rank writes only its points (and the ghosts they
            // mirror to) and reads its tile and the ring the waits before
            // made current; neighbours write that ring again only after
            // this rank's notification of the next step.
            rank.threads(|t| unsafe {
                let thread = (t.index(), threads as u32);
                let claims = Claims::at_step(RANK_CLAIMS.as_mut_ptr(), thread, &rect, k);
                step_claimed::<true>(&inner, &(old, new, args.r), &rect, &args.step, &claims)
            })
        });
        // Packing reads points other threads computed (the notifications
        // and puts below synchronise the rank themselves).
        if columns_n > 0 {
            rank.sync_threads();
        }
        let tag = k % 2;
        // In this process a neighbour reads the halo where it is (rows and
        // columns alike): a notification says it is ready. A put onto
        // itself cost 6-8 µs a row against 2 µs for the notification
        // (traced, one H200). One call for all of them: one barrier
        // (2% less a step at 2048² than a `notify` each).
        rank.notify_each(world, &here[..nearby], tag);
        for &(target, from, to) in &rows_out[..rows_n] {
            let row = new.slice(from * p + x0..from * p + x1);
            rank.put_notify(states[(k as usize + 1) % 2], target, to + x0, row, tag);
        }
        // Columns to another process, packed.
        for &(target, east) in &columns_out[..columns_n] {
            let col = if east { x1 - 1 } else { x0 } as u32;
            let out = packed.slice(slot(parity, east)..slot(parity, east) + (y1 - y0));
            // It arrives as the neighbour's column from the other side.
            pack_put(
                rank,
                (fields, new, col, (y0 as u32, y1 as u32), out),
                (columns, target, slot(parity, !east), tag),
            );
        }
        // A tile on the grid's sides mirrors its ghost points while its
        // neighbours finish: the wait's barrier orders them before the next
        // step, `notify_each`'s (or this one) the step's points before them.
        if mirrors {
            if nearby == 0 {
                rank.sync_threads();
            }
            rank.threads(|t| unsafe {
                // SAFETY: the rank's own points and the ghost points they
                // mirror to, which only this rank reads.
                mirror_ghosts(&fields, new, &rect, (t.index(), threads as u32))
            });
        }
        rank.wait_notifications(tag, count);
        // Columns from other processes into the ghost columns.
        for &(_, east) in &columns_out[..columns_n] {
            let col = if east { x1 } else { x0 - 1 } as u32;
            let from = received.slice(slot(parity, east)..slot(parity, east) + (y1 - y0));
            rank.threads(|t| unsafe {
                // SAFETY: the rank's own ghost column and received slot,
                // which the wait above made current.
                copy_column(
                    fields,
                    new,
                    (col, (y0 as u32, y1 as u32)),
                    from,
                    false,
                    (t.index() as usize, threads),
                )
            });
        }
        // The next step reads the ghost columns other threads wrote; the
        // wait's barrier orders everything else.
        if columns_n > 0 {
            rank.sync_threads();
        }
    }
    rank.barrier(world);
    let elapsed = rank.timestamp() - started;
    let longest = rank.allreduce(world, elapsed, Max);
    if me == 0 {
        // SAFETY: world rank 0 alone writes it, uniformly.
        unsafe { args.elapsed.write(0, longest) };
    }
    for win in [states[0], states[1]] {
        rank.win_free(win);
    }
    rank.win_free(columns);
}
// ANCHOR_END: ranks
