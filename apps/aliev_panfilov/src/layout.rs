//! Who owns what: the grid's interior split over a grid of processes, each
//! process's part over a grid of ranks (or blocks). Every tile is a
//! rectangle of the global grid; a process stores its part with a ring of
//! ghost points (`pitch = width + 2`).

/// Part `i` of `parts` of `n` points: `start..end`, an even split, sizes
/// differing by at most one.
#[inline(always)]
pub fn split(n: u32, parts: u32, i: u32) -> (u32, u32) {
    let at = |i: u32| (i as u64 * n as u64 / parts as u64) as u32;
    (at(i), at(i + 1))
}

/// The decomposition: `procs_x × procs_y` processes, each with
/// `ranks_x × ranks_y` ranks; world rank `r` is process `r / (ranks_x ·
/// ranks_y)`, processes numbered along x first, and so are ranks.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Interior points in x and y.
    pub nx: u32,
    /// See `nx`.
    pub ny: u32,
    /// Processes along x and y.
    pub procs_x: u32,
    /// See `procs_x`.
    pub procs_y: u32,
    /// Ranks of a process along x and y.
    pub ranks_x: u32,
    /// See `ranks_x`.
    pub ranks_y: u32,
}

/// A rectangle of a process's fields: rows `y0..y1`, columns `x0..x1`
/// (array indices; the interior starts at 1).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    /// First row.
    pub y0: u32,
    /// One past the last row.
    pub y1: u32,
    /// First column.
    pub x0: u32,
    /// One past the last column.
    pub x1: u32,
}

impl Rect {
    /// Rows.
    #[inline(always)]
    pub fn height(&self) -> u32 {
        self.y1 - self.y0
    }

    /// Columns.
    #[inline(always)]
    pub fn width(&self) -> u32 {
        self.x1 - self.x0
    }
}

impl Layout {
    /// Ranks along x and y of the whole world.
    #[inline(always)]
    pub fn world(&self) -> (u32, u32) {
        (self.procs_x * self.ranks_x, self.procs_y * self.ranks_y)
    }

    /// Processes.
    #[inline(always)]
    pub fn processes(&self) -> u32 {
        self.procs_x * self.procs_y
    }

    /// Ranks of a process.
    #[inline(always)]
    pub fn ranks_per_process(&self) -> u32 {
        self.ranks_x * self.ranks_y
    }

    /// The grid position `(gx, gy)` of world rank `rank`.
    #[inline(always)]
    pub fn position(&self, rank: u32) -> (u32, u32) {
        let (p, local) = (
            rank / self.ranks_per_process(),
            rank % self.ranks_per_process(),
        );
        let (px, py) = (p % self.procs_x, p / self.procs_x);
        (
            px * self.ranks_x + local % self.ranks_x,
            py * self.ranks_y + local / self.ranks_x,
        )
    }

    /// The world rank at grid position `(gx, gy)`.
    #[inline(always)]
    pub fn rank_at(&self, (gx, gy): (u32, u32)) -> u32 {
        let p = (gy / self.ranks_y) * self.procs_x + gx / self.ranks_x;
        let local = (gy % self.ranks_y) * self.ranks_x + gx % self.ranks_x;
        p * self.ranks_per_process() + local
    }

    /// The global columns and rows (0-based interior indices) of the tile
    /// at `(gx, gy)`.
    #[inline(always)]
    pub fn tile(&self, (gx, gy): (u32, u32)) -> ((u32, u32), (u32, u32)) {
        let (wx, wy) = self.world();
        (split(self.nx, wx, gx), split(self.ny, wy, gy))
    }

    /// The global columns and rows of process `(px, py)`'s part.
    #[inline(always)]
    pub fn part(&self, (px, py): (u32, u32)) -> ((u32, u32), (u32, u32)) {
        let first = self.tile((px * self.ranks_x, py * self.ranks_y));
        let last = self.tile((
            px * self.ranks_x + self.ranks_x - 1,
            py * self.ranks_y + self.ranks_y - 1,
        ));
        ((first.0 .0, last.0 .1), (first.1 .0, last.1 .1))
    }

    /// The process that holds the tile at `(gx, gy)`.
    #[inline(always)]
    pub fn process_of(&self, (gx, gy): (u32, u32)) -> (u32, u32) {
        (gx / self.ranks_x, gy / self.ranks_y)
    }

    /// The tile at `(gx, gy)` in its process's fields.
    #[inline(always)]
    pub fn rect(&self, at: (u32, u32)) -> Rect {
        let (cols, rows) = self.tile(at);
        let (pc, pr) = self.part(self.process_of(at));
        Rect {
            y0: rows.0 - pr.0 + 1,
            y1: rows.1 - pr.0 + 1,
            x0: cols.0 - pc.0 + 1,
            x1: cols.1 - pc.0 + 1,
        }
    }

    /// The shape of process `(px, py)`'s fields.
    #[inline(always)]
    pub fn fields(&self, p: (u32, u32)) -> Fields {
        let ((c0, c1), (r0, r1)) = self.part(p);
        let mut edges = 0;
        if c0 == 0 {
            edges |= Fields::WEST;
        }
        if c1 == self.nx {
            edges |= Fields::EAST;
        }
        if r0 == 0 {
            edges |= Fields::NORTH;
        }
        if r1 == self.ny {
            edges |= Fields::SOUTH;
        }
        Fields {
            width: c1 - c0,
            height: r1 - r0,
            edges,
        }
    }
}

/// A process's fields: `height` × `width` interior points in a ring of
/// ghost points; `edges` says which sides lie on the grid's boundary,
/// where the ghost points mirror the interior (no flux).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fields {
    /// Interior columns.
    pub width: u32,
    /// Interior rows.
    pub height: u32,
    /// [`Fields::WEST`] | … of the sides on the boundary.
    pub edges: u32,
}

impl Fields {
    /// The side at column 0.
    pub const WEST: u32 = 1;
    /// The side at column `width + 1`.
    pub const EAST: u32 = 2;
    /// The side at row 0.
    pub const NORTH: u32 = 4;
    /// The side at row `height + 1`.
    pub const SOUTH: u32 = 8;

    /// Elements of a row, ghosts included.
    #[inline(always)]
    pub fn pitch(&self) -> usize {
        self.width as usize + 2
    }

    /// Elements of a field.
    #[inline(always)]
    pub fn len(&self) -> usize {
        (self.height as usize + 2) * self.pitch()
    }

    /// Whether a field holds nothing.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `rect` lies within the interior and is not inverted.
    #[inline(always)]
    pub fn holds(&self, rect: &Rect) -> bool {
        rect.x0 >= 1
            && rect.y0 >= 1
            && rect.x0 <= rect.x1
            && rect.y0 <= rect.y1
            && rect.x1 <= self.width + 1
            && rect.y1 <= self.height + 1
    }

    /// The whole interior.
    #[inline(always)]
    pub fn interior(&self) -> Rect {
        Rect {
            y0: 1,
            y1: self.height + 1,
            x0: 1,
            x1: self.width + 1,
        }
    }
}
