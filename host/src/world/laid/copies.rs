//! A typed piece's rectangles as copies: each one a 2D copy, and
//! consecutive ones of one shape, evenly spaced in the window, stacked
//! into one 3D copy.

use super::{Laid, Rect};
use crate::backend::{Extent3, Planes};

/// One rectangle of a piece in bytes: where in the window, its rows'
/// pitch and width, how many, and where its bytes lie in the packed data.
pub(super) struct Copy2d {
    pub(super) window: u64,
    pub(super) pitch: usize,
    pub(super) width: usize,
    pub(super) rows: usize,
    pub(super) packed: std::ops::Range<usize>,
}

impl Laid {
    /// The rectangles as copies, for a window whose element 0 of the
    /// layout is at `base`.
    pub(super) fn copies<'a>(
        &'a self,
        rects: &'a [Rect],
        base: u64,
    ) -> impl Iterator<Item = Copy2d> + 'a {
        let elem = self.elem;
        let mut at = 0;
        rects.iter().map(move |r| {
            let n = (r.rows * r.width * elem) as usize;
            let c = Copy2d {
                window: base + r.start * elem,
                pitch: (r.pitch * elem) as usize,
                width: (r.width * elem) as usize,
                rows: r.rows as usize,
                packed: at..at + n,
            };
            at += n;
            c
        })
    }
}

/// Rectangles of one shape, their window rows evenly spaced from one to
/// the next (the planes of a sub-block), packed one after another: one
/// 3D copy, where the GPU takes it in one call.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Copy3d {
    pub(super) window: Planes,
    pub(super) width: usize,
    pub(super) rows: usize,
    pub(super) planes: usize,
    /// Where its bytes start in the packed data.
    pub(super) packed: usize,
}

impl Copy3d {
    /// Its packed side, in a scratch at `scratch`.
    pub(super) fn packed(&self, scratch: u64) -> Planes {
        Planes {
            addr: scratch + self.packed as u64,
            pitch: self.width,
            plane: self.width * self.rows,
        }
    }

    pub(super) fn extent(&self) -> Extent3 {
        (self.width, self.rows, self.planes)
    }
}

/// The copies, consecutive ones of one shape evenly spaced in the window
/// stacked into one (their packed bytes follow one another already).
pub(super) fn stacked(copies: impl Iterator<Item = Copy2d>) -> Vec<Copy3d> {
    let mut out: Vec<Copy3d> = Vec::new();
    for c in copies {
        if let Some(last) = out.last_mut() {
            let w = &mut last.window;
            let shape = (last.width, last.rows, w.pitch) == (c.width, c.rows, c.pitch);
            let gap = c.window.checked_sub(w.addr).filter(|&g| g > 0);
            match (shape, last.planes, gap) {
                (true, 1, Some(gap)) => {
                    w.plane = gap as usize;
                    last.planes = 2;
                    continue;
                }
                (true, n, _) if n > 1 && c.window == w.addr + (n * w.plane) as u64 => {
                    last.planes += 1;
                    continue;
                }
                _ => {}
            }
        }
        out.push(Copy3d {
            window: Planes {
                addr: c.window,
                pitch: c.pitch,
                plane: 0,
            },
            width: c.width,
            rows: c.rows,
            planes: 1,
            packed: c.packed.start,
        });
    }
    out
}
