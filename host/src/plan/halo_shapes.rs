//! The halos of common shapes: a line of ranks, and a 2D grid of tiles.

use super::halo::{HaloPlan, Slice};
use super::Placement;
use crate::error::{Error, Result};
use dcuda_device::DeviceCopy;

/// A 2D grid of ranks, each with a tile of `rows × cols` own elements
/// inside a ghost frame of `halo`: its part is `(rows + 2 halo) × (cols +
/// 2 halo)` elements, row-major. Rank `y * ranks_x + x` sits at column
/// `x`, row `y` of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    /// Ranks along a row of the grid.
    pub ranks_x: u32,
    /// Ranks along a column of the grid.
    pub ranks_y: u32,
    /// Own rows of a tile.
    pub rows: usize,
    /// Own columns of a tile.
    pub cols: usize,
    /// Width of the ghost frame.
    pub halo: usize,
    /// Whether the grid wraps around (a torus).
    pub periodic: bool,
}

impl Grid {
    /// Elements in a part: the tile and its frame.
    pub fn part_len(&self) -> usize {
        (self.rows + 2 * self.halo) * (self.cols + 2 * self.halo)
    }
}

impl<T: DeviceCopy> HaloPlan<T> {
    /// Collective: the halo of a line of ranks. Each part is a low ghost
    /// zone of `halo` elements, the rank's own elements, and a high ghost
    /// zone of `halo`: a rank's first `halo` own elements go to the high
    /// ghost zone of the rank before it, its last `halo` to the low ghost
    /// zone of the rank after it; with `periodic`, the ends wrap around.
    pub fn line(
        at: &Placement,
        part_len: usize,
        halo: usize,
        periodic: bool,
    ) -> Result<HaloPlan<T>> {
        if part_len < 3 * halo {
            return Err(Error::InvalidArgument {
                call: "HaloPlan::line",
                reason: format!("parts of {part_len} elements cannot hold two ghost zones of {halo} and {halo} own elements"),
            });
        }
        let n = at.ranks();
        let mut slices = Vec::new();
        for r in 0..n {
            let (before, after) = ((r + n - 1) % n, (r + 1) % n);
            if periodic || r > 0 {
                slices.push(Slice::run(r, halo, before, part_len - halo, halo));
            }
            if periodic || r + 1 < n {
                slices.push(Slice::run(r, part_len - 2 * halo, after, 0, halo));
            }
        }
        HaloPlan::new(at, part_len, slices)
    }

    /// Collective: the halo of a 2D grid of tiles (a five-point stencil's:
    /// the frame's corners are not exchanged). A tile's first and last
    /// `halo` own rows go to the frames of the ranks above and below it,
    /// its first and last `halo` own columns to those left and right.
    pub fn grid(at: &Placement, g: Grid) -> Result<HaloPlan<T>> {
        let (px, py, h) = (g.ranks_x, g.ranks_y, g.halo);
        if px.checked_mul(py) != Some(at.ranks()) || g.rows < h || g.cols < h {
            return Err(Error::InvalidArgument {
                call: "HaloPlan::grid",
                reason: format!("{g:?} for {} ranks: the grid must hold every rank, and a tile at least the halo's width", at.ranks()),
            });
        }
        let pitch = g.cols + 2 * h;
        let cell = |row: usize, col: usize| row * pitch + col;
        let neighbour = |x: u32, y: u32, dx: i64, dy: i64| {
            let (nx, ny) = (x as i64 + dx, y as i64 + dy);
            let inside = (0..px as i64).contains(&nx) && (0..py as i64).contains(&ny);
            (inside || g.periodic)
                .then(|| (ny.rem_euclid(py as i64) * px as i64 + nx.rem_euclid(px as i64)) as u32)
        };
        let rows = |from, to| Slice::run(0, from, 0, to, g.cols).repeated(h, pitch, pitch);
        let cols = |from, to| Slice::run(0, from, 0, to, h).repeated(g.rows, pitch, pitch);
        let mut slices = Vec::new();
        for r in 0..at.ranks() {
            let (x, y) = (r % px, r / px);
            // (neighbour, what of this tile goes there, into which part of its frame)
            let sends = [
                (
                    neighbour(x, y, 0, -1),
                    rows(cell(h, h), cell(h + g.rows, h)),
                ),
                (neighbour(x, y, 0, 1), rows(cell(g.rows, h), cell(0, h))),
                (
                    neighbour(x, y, -1, 0),
                    cols(cell(h, h), cell(h, h + g.cols)),
                ),
                (neighbour(x, y, 1, 0), cols(cell(h, g.cols), cell(h, 0))),
            ];
            for (to, s) in sends {
                if let Some(to) = to {
                    slices.push(Slice {
                        from_rank: r,
                        to_rank: to,
                        ..s
                    });
                }
            }
        }
        HaloPlan::new(at, g.part_len(), slices)
    }
}
