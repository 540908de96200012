//! How a rank's or block's threads walk a rectangle's points in a step:
//! by a fixed stride ([`step`], the baseline's choice), or by claiming
//! chunks of points as they go ([`step_claimed`], the rank kernel's and
//! the baseline's default). Both step each point with the same code, and
//! mirror to the ghost points as they store where `fields` has edges; the
//! programs' claims walk fields without edges and mirror in a pass of its
//! own ([`mirror_ghosts`](crate::mirror_ghosts)).

use crate::compute::{point, TimeStep};
use crate::layout::{Fields, Rect};
use dcuda_device::arch::{self, fetch_add, Ordering, Scope};
use dcuda_device::DeviceSlice;

/// The fields of a step: the excitation read (`old`) and written (`new`),
/// the recovery updated in place.
type State = (DeviceSlice<f64>, DeviceSlice<f64>, DeviceSlice<f64>);

/// How the threads of a block share a step's points (the baseline's
/// `--walk`; the rank kernel always claims).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Walking {
    /// Every `threads`-th point, fixed in advance ([`Walk`]).
    Stride = 0,
    /// Chunks claimed as the threads go ([`Claims`]).
    Claims = 1,
}

/// One thread's walk over the points of a step: thread `thread` of
/// `threads` takes every `threads`-th point, so that a warp reads
/// consecutive points, and loads `batch` points (1, 2, 4 or 8) before it
/// stores any. Stores could alias the loads, so the compiler would not
/// move loads above them itself; a batch keeps more loads in flight, at
/// the cost of registers.
#[derive(Clone, Copy, Debug)]
pub struct Walk {
    /// This thread.
    pub thread: usize,
    /// Threads of the rank or block.
    pub threads: usize,
    /// Points loaded before they are stored.
    pub batch: u32,
}

// ANCHOR: step
/// Thread `thread` of `threads` steps its points of `rect`: `old` → `new`
/// for the excitation, the recovery `r` in place. Where the process's
/// side is the grid's boundary, the point one in from the edge is also
/// written to the ghost point it mirrors (no flux).
///
/// # Safety
/// While it runs, nothing writes `old` in `rect` and the ring around it,
/// and nothing else touches this thread's points of `new` and `r` or the
/// ghost points they mirror to.
#[inline(always)]
pub unsafe fn step(fields: Fields, state: State, rect: Rect, s: TimeStep, walk: Walk) {
    match walk.batch {
        1 => batched::<1>(fields, state, rect, s, walk),
        2 => batched::<2>(fields, state, rect, s, walk),
        4 => batched::<4>(fields, state, rect, s, walk),
        _ => batched::<8>(fields, state, rect, s, walk),
    }
}
// ANCHOR_END: step

/// `fields` without its boundary sides if `rect` holds no point that
/// mirrors to a ghost point (the point one in from a side on the grid's
/// boundary), so that the walk's mirror checks fold away.
#[inline(always)]
fn without_mirrors(fields: &Fields, rect: &Rect) -> Option<Fields> {
    let mirrors = (fields.edges & Fields::WEST != 0 && rect.x0 <= 2)
        || (fields.edges & Fields::EAST != 0 && rect.x1 >= fields.width)
        || (fields.edges & Fields::NORTH != 0 && rect.y0 <= 2)
        || (fields.edges & Fields::SOUTH != 0 && rect.y1 >= fields.height);
    (!mirrors).then_some(Fields {
        edges: 0,
        ..*fields
    })
}

/// Checks `rect` against the fields, once before a walk: the points'
/// reads and writes below stay within it.
#[inline(always)]
fn check_rect(fields: &Fields, (old, new, r): &State, rect: &Rect) -> u32 {
    assert!(
        fields.holds(rect) && [old, new, r].iter().all(|f| f.len() >= fields.len()),
        "aliev_panfilov: a rectangle outside the fields"
    );
    let n = rect.width() as u64 * rect.height() as u64;
    // Cursors run in 32 bits (fewer registers), a stride past the end.
    assert!(
        n + 64 * 1024 <= u32::MAX as u64,
        "aliev_panfilov: a rectangle of over 2^32 points"
    );
    n as u32
}

/// The model's step of point `c` (an index into the fields): its new
/// excitation and recovery.
#[inline(always)]
unsafe fn load_point(o: *const f64, r: *const f64, p: usize, c: usize, s: TimeStep) -> (f64, f64) {
    let lap = *o.add(c + 1) + *o.add(c - 1) + *o.add(c + p) + *o.add(c - p);
    point(*o.add(c), lap, *r.add(c), s)
}

/// Stores point (`j`, `i`)'s new values, and the excitation also to the
/// ghost point it mirrors, if any.
#[inline(always)]
unsafe fn store_point(
    fields: &Fields,
    (e_out, r): (*mut f64, *mut f64),
    (j, i): (usize, usize),
    (e, rr): (f64, f64),
) {
    let p = fields.pitch();
    let mirror = |side: u32| fields.edges & side != 0;
    let c = j * p + i;
    *e_out.add(c) = e;
    *r.add(c) = rr;
    if i == 2 && mirror(Fields::WEST) {
        *e_out.add(j * p) = e;
    }
    if i == fields.width as usize - 1 && mirror(Fields::EAST) {
        *e_out.add(j * p + p - 1) = e;
    }
    if j == 2 && mirror(Fields::NORTH) {
        *e_out.add(i) = e;
    }
    if j == fields.height as usize - 1 && mirror(Fields::SOUTH) {
        *e_out.add((fields.height as usize + 1) * p + i) = e;
    }
}

#[inline(always)]
unsafe fn batched<const BATCH: usize>(
    fields: Fields,
    state: State,
    rect: Rect,
    s: TimeStep,
    Walk {
        thread, threads, ..
    }: Walk,
) {
    let n = check_rect(&fields, &state, &rect);
    if n == 0 {
        return;
    }
    let (old, new, r) = state;
    let (p, w) = (fields.pitch(), rect.width());
    // The (row, column) cursor stepped by `threads` points at a time
    // without a division.
    let stride = threads as u32;
    let (dj, di) = (stride / w, stride % w);
    let (o, e_out, r_io) = (old.as_ptr(), new.as_mut_ptr(), r.as_mut_ptr());
    let mut k = thread as u32;
    let (mut j, mut i) = (rect.y0 + k / w, rect.x0 + k % w);
    while k < n {
        let mut points = [(0u32, 0u32, false, 0.0f64, 0.0f64); BATCH];
        for point_b in points.iter_mut() {
            if k < n {
                let c = j as usize * p + i as usize;
                let (e, rr) = load_point(o, r_io, p, c, s);
                *point_b = (j, i, true, e, rr);
            }
            k += stride;
            (j, i) = (j + dj, i + di);
            if i >= rect.x1 {
                (j, i) = (j + 1, i - w);
            }
        }
        for (j, i, live, e, rr) in points {
            if live {
                store_point(&fields, (e_out, r_io), (j as usize, i as usize), (e, rr));
            }
        }
    }
}

/// Points a thread steps for each claim of [`step_claimed`]: fewer claims
/// cost more atomics, more leave a longer tail (4 was the fastest of 1, 2
/// and 4 on an H200, `bench/results/2026-11-29-claims-h200/`).
pub const CLAIM_POINTS: u32 = 4;

/// A thread's claims on its rank's or block's points in a step. Lane `l`
/// of every warp takes chunks from counter `l` (32 counters in block
/// shared memory, a bank each, so that a warp's 32 claims do not collide),
/// and steps lane `l`'s points of each chunk. So a block needs at least 32
/// threads, one of every lane (the programs take 32 to 1024).
#[derive(Clone, Copy, Debug)]
pub struct Claims {
    /// Its lane's counter.
    pub counter: *mut u32,
    /// Its lane.
    pub lane: u32,
    /// The counter's value when this step's claims began.
    pub base: u32,
}

impl Claims {
    /// How far a step over `rect` moves lane `lane`'s counter: once for
    /// every chunk, and once more for each thread of that lane among
    /// `threads` (its last claim, which finds no chunk left).
    pub fn per_step(rect: &Rect, threads: u32, lane: u32) -> u32 {
        let n = rect.width() * rect.height();
        n.div_ceil(32 * CLAIM_POINTS) + threads / 32 + (lane < threads % 32) as u32
    }

    /// The claims of thread `thread` of `threads` in step `step` (from 0)
    /// over `rect`, the block's 32 counters at `counters`, each 0 before
    /// step 0: every step moves a counter as far ([`Claims::per_step`]).
    #[inline(always)]
    pub fn at_step(
        counters: *mut u32,
        (thread, threads): (u32, u32),
        rect: &Rect,
        step: u32,
    ) -> Claims {
        let lane = thread % 32;
        Claims {
            counter: counters.wrapping_add(lane as usize),
            lane,
            base: step.wrapping_mul(Self::per_step(rect, threads, lane)),
        }
    }
}

/// [`step`] with the points handed out as the threads ask for them. A
/// chunk is 32 × [`CLAIM_POINTS`] consecutive points; a claim gives a
/// thread its lane's points of the next chunk, so a warp's claims at once
/// give it a whole chunk, read as the stride walk reads, and a warp that
/// runs ahead takes more chunks than one held up. A thread
/// claims its next chunk before it steps the last one, so the atomic's
/// latency hides behind the step. Out of line: called, the walk gets
/// registers of its own, where inlined into the persistent kernel (capped
/// beside the runtime's state) ptxas reloaded its invariants from local
/// memory at every point. With `AHEAD` a warp asks for the lines of its
/// next chunk while it steps this one (loads in flight that hold no
/// register): the rank kernel always does, 8–10% faster on an H200
/// (`bench/results/2026-11-30-ap-ahead-h200/`); the baseline with
/// `--ahead`.
///
/// # Safety
/// As [`step`]; `claims` is this thread's, at this step's base, and every
/// thread of the block calls it with the same arguments otherwise.
#[inline(never)]
pub unsafe fn step_claimed<const AHEAD: bool>(
    fields: &Fields,
    state: &State,
    rect: &Rect,
    s: &TimeStep,
    claims: &Claims,
) {
    match without_mirrors(fields, rect) {
        Some(inner) => claimed::<AHEAD>(inner, *state, *rect, *s, *claims),
        None => claimed::<AHEAD>(*fields, *state, *rect, *s, *claims),
    }
}

// ANCHOR: claims
#[inline(always)]
unsafe fn claimed<const AHEAD: bool>(
    fields: Fields,
    state: State,
    rect: Rect,
    s: TimeStep,
    claims: Claims,
) {
    let n = check_rect(&fields, &state, &rect);
    if n == 0 {
        return;
    }
    let (old, new, r) = state;
    let (p, w) = (fields.pitch(), rect.width());
    let chunk = 32 * CLAIM_POINTS;
    let chunks = n.div_ceil(chunk);
    // The lane's cursor, stepped 32 points at a time.
    let (dj, di) = (32 / w, 32 % w);
    let (o, e_out, r_io) = (old.as_ptr(), new.as_mut_ptr(), r.as_mut_ptr());
    let claim =
        || fetch_add(claims.counter, 1, Ordering::Relaxed, Scope::Block).wrapping_sub(claims.base);
    // With AHEAD, a warp asks for the lines of its next chunk while it
    // steps this one: lane `l` for line `l % 8` of the chunk's 128 points
    // (16 a line) in the excitation's row above, at or below, or the
    // recovery's row (`l / 8`).
    let ahead = |v: u32| {
        let k = v.wrapping_mul(chunk).wrapping_add((claims.lane % 8) * 16);
        if v < chunks && k < n {
            let c = (rect.y0 + k / w) as usize * p + (rect.x0 + k % w) as usize;
            let line = match claims.lane / 8 {
                0 => o.add(c - p),
                1 => o.add(c),
                2 => o.add(c + p),
                _ => r_io.add(c) as *const f64,
            };
            arch::prefetch_l1(line);
        }
    };
    let mut v = claim();
    while v < chunks {
        let next = claim();
        if AHEAD {
            ahead(next);
        }
        let mut k = v * chunk + claims.lane;
        let (mut j, mut i) = (rect.y0 + k / w, rect.x0 + k % w);
        for _ in 0..CLAIM_POINTS {
            if k >= n {
                break;
            }
            let c = j as usize * p + i as usize;
            let values = load_point(o, r_io, p, c, s);
            store_point(&fields, (e_out, r_io), (j as usize, i as usize), values);
            k += 32;
            (j, i) = (j + dj, i + di);
            if i >= rect.x1 {
                (j, i) = (j + 1, i - w);
            }
        }
        v = next;
    }
}
// ANCHOR_END: claims

#[cfg(test)]
mod tests;
