//! The no-flux boundary as a pass of its own: where a process's side is
//! the grid's, a ghost point mirrors the point two in from it (column 0
//! holds column 2, row 0 row 2, and so on). The walks can mirror as they
//! store, testing every point; the claims of both programs walk fields
//! without edges instead and then run [`mirror_ghosts`], once every point
//! of the step is stored. The tiles on the grid's sides then step as fast
//! as the inside ones (they lagged by 14%, and every rank waited for
//! them), and the rank kernel runs the pass while it waits for its
//! neighbours. The stride walk ([`step`](crate::step)) still mirrors as it
//! stores.

use crate::layout::{Fields, Rect};
use dcuda_device::DeviceSlice;

/// The ghost points that points of `rect` mirror to, a side at a time:
/// (how many, the first ghost point, the first point it mirrors, the
/// step between consecutive ones), in the fields' indices; a count of 0
/// for a side with none.
#[inline(always)]
fn sides(fields: &Fields, rect: &Rect) -> [(u32, usize, usize, usize); 4] {
    let p = fields.pitch();
    // Saturating: a field of one column has no point two in (x ≥ 1).
    let (w1, h1) = (
        fields.width.saturating_sub(1),
        fields.height.saturating_sub(1),
    );
    let on = |side: u32| fields.edges & side != 0;
    let holds_column = |x: u32| rect.x0 <= x && x < rect.x1;
    let holds_row = |y: u32| rect.y0 <= y && y < rect.y1;
    let (y0, x0) = (rect.y0 as usize, rect.x0 as usize);
    let count = |live: bool, n: u32| if live { n } else { 0 };
    [
        // West: column 0 from column 2; east: column w + 1 from w − 1.
        (
            count(on(Fields::WEST) && holds_column(2), rect.height()),
            y0 * p,
            y0 * p + 2,
            p,
        ),
        (
            count(on(Fields::EAST) && holds_column(w1), rect.height()),
            y0 * p + p - 1,
            y0 * p + w1 as usize,
            p,
        ),
        // North: row 0 from row 2; south: row h + 1 from h − 1.
        (
            count(on(Fields::NORTH) && holds_row(2), rect.width()),
            x0,
            2 * p + x0,
            1,
        ),
        (
            count(on(Fields::SOUTH) && holds_row(h1), rect.width()),
            (h1 as usize + 2) * p + x0,
            h1 as usize * p + x0,
            1,
        ),
    ]
}

/// Whether any point of `rect` mirrors to a ghost point: whether
/// [`mirror_ghosts`] has anything to do for it.
#[inline(always)]
pub fn has_mirrors(fields: &Fields, rect: &Rect) -> bool {
    sides(fields, rect).iter().any(|side| side.0 > 0)
}

// ANCHOR: mirror
/// Thread `thread` of `threads` writes its share of the ghost points that
/// points of `rect` mirror to in `field`, from those points. Run it after
/// every thread's points of the step are stored.
///
/// # Safety
/// While it runs, nothing writes the points of `rect` that it reads, and
/// nothing else touches the ghost points it writes.
#[inline(never)]
pub unsafe fn mirror_ghosts(
    fields: &Fields,
    field: DeviceSlice<f64>,
    rect: &Rect,
    (thread, threads): (u32, u32),
) {
    assert!(
        fields.holds(rect) && field.len() >= fields.len(),
        "aliev_panfilov: a rectangle outside the fields"
    );
    let f = field.as_mut_ptr();
    for (n, ghost, point, step) in sides(fields, rect) {
        let mut k = thread;
        while k < n {
            let at = k as usize * step;
            *f.add(ghost + at) = *f.add(point + at);
            k += threads;
        }
    }
}
// ANCHOR_END: mirror
