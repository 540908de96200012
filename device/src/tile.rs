//! Tiles: a 2D grid split over ranks, each rank's part stored with a halo
//! around it, and the datatypes of its edges and halos, for
//! [`Rank::halo_exchange_2d`](crate::Rank::halo_exchange_2d).

use crate::datatype::Datatype;

/// One side of a tile; rows grow southwards, columns eastwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The first rows.
    North,
    /// The last rows.
    South,
    /// The first columns.
    West,
    /// The last columns.
    East,
}

impl Side {
    /// The four sides, in the order the exchange takes them.
    pub const ALL: [Side; 4] = [Side::North, Side::South, Side::West, Side::East];

    /// The side facing this one on the neighbour.
    pub const fn opposite(self) -> Side {
        match self {
            Side::North => Side::South,
            Side::South => Side::North,
            Side::West => Side::East,
            Side::East => Side::West,
        }
    }
}

/// A rank's part of a 2D grid: `rows × cols` points stored row-major in
/// an array of `(rows + 2 halo) × (cols + 2 halo)` elements, the interior
/// at row and column `halo`, a frame `halo` wide around it for the
/// neighbours' points.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile {
    /// Interior rows.
    pub rows: u32,
    /// Interior columns.
    pub cols: u32,
    /// The frame's width.
    pub halo: u32,
}

impl Tile {
    /// Elements of the array, frame included.
    pub const fn len(&self) -> usize {
        self.pitch() as usize * (self.rows + 2 * self.halo) as usize
    }

    /// Whether it has no elements.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Elements a row of the array holds.
    pub const fn pitch(&self) -> u32 {
        self.cols + 2 * self.halo
    }

    /// The `h × w` block at row `r`, column `c` of the array.
    const fn block(&self, (r, c): (u32, u32), (h, w): (u32, u32)) -> Datatype {
        let t = Datatype::vector(h, w, self.pitch() as u64);
        match t.shifted(r as u64 * self.pitch() as u64 + c as u64) {
            Ok(t) => t,
            Err(_) => Datatype::contiguous(0), // Not reached: a u32 tile fits.
        }
    }

    /// The interior points along `side` that a neighbour there needs: the
    /// `halo` outermost rows (north, south) or columns (west, east).
    pub const fn edge(&self, side: Side) -> Datatype {
        let (h, r, c) = (self.halo, self.rows, self.cols);
        match side {
            Side::North => self.block((h, h), (h, c)),
            Side::South => self.block((r, h), (h, c)),
            Side::West => self.block((h, h), (r, h)),
            Side::East => self.block((h, c), (r, h)),
        }
    }

    /// The frame along `side`: where the neighbour there puts its edge.
    pub const fn frame(&self, side: Side) -> Datatype {
        let (h, r, c) = (self.halo, self.rows, self.cols);
        match side {
            Side::North => self.block((0, h), (h, c)),
            Side::South => self.block((r + h, h), (h, c)),
            Side::West => self.block((h, 0), (r, h)),
            Side::East => self.block((h, c + h), (r, h)),
        }
    }
}
