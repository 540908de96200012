//! Tiles: a 2D or 3D grid split over ranks, each rank's part stored with
//! a frame around it for its neighbours' points, and the datatypes of its
//! edges and frames, for
//! [`Rank::halo_exchange_2d`](crate::Rank::halo_exchange_2d) and
//! [`Rank::halo_exchange_3d`](crate::Rank::halo_exchange_3d).

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

/// One face of a 3D block: the low or high end of each dimension (z is
/// the slowest, x the contiguous one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Face {
    /// The first planes of z.
    ZLow,
    /// The last planes of z.
    ZHigh,
    /// The first rows of y.
    YLow,
    /// The last rows of y.
    YHigh,
    /// The first columns of x.
    XLow,
    /// The last columns of x.
    XHigh,
}

impl Face {
    /// The six faces, in the order the exchange takes them.
    pub const ALL: [Face; 6] = [
        Face::ZLow,
        Face::ZHigh,
        Face::YLow,
        Face::YHigh,
        Face::XLow,
        Face::XHigh,
    ];

    /// The face facing this one on the neighbour.
    pub const fn opposite(self) -> Face {
        match self {
            Face::ZLow => Face::ZHigh,
            Face::ZHigh => Face::ZLow,
            Face::YLow => Face::YHigh,
            Face::YHigh => Face::YLow,
            Face::XLow => Face::XHigh,
            Face::XHigh => Face::XLow,
        }
    }

    /// The dimension (0: z, 1: y, 2: x) and whether it is the high end.
    const fn axis(self) -> (usize, bool) {
        match self {
            Face::ZLow => (0, false),
            Face::ZHigh => (0, true),
            Face::YLow => (1, false),
            Face::YHigh => (1, true),
            Face::XLow => (2, false),
            Face::XHigh => (2, true),
        }
    }
}

/// A rank's part of a 3D grid: `dims` (z, y, x) points stored row-major in
/// an array of `dims + 2 halo` in every dimension, the interior at
/// `halo`, a frame `halo` wide around it for the neighbours' points.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile3 {
    /// Interior points along z, y and x.
    pub dims: [u32; 3],
    /// The frame's width.
    pub halo: u32,
}

impl Tile3 {
    /// The array's sizes, frame included.
    pub const fn sizes(&self) -> [u32; 3] {
        let h = 2 * self.halo;
        [self.dims[0] + h, self.dims[1] + h, self.dims[2] + h]
    }

    /// Elements of the array, frame included.
    pub const fn len(&self) -> usize {
        let s = self.sizes();
        s[0] as usize * s[1] as usize * s[2] as usize
    }

    /// Whether it has no elements.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The slab `halo` thick along `face`'s dimension starting at `at`
    /// there, spanning the interior in the other two.
    const fn slab(&self, face: Face, at: u32) -> Datatype {
        let (axis, _) = face.axis();
        let h = self.halo;
        let mut sub = self.dims;
        let mut start = [h, h, h];
        sub[axis] = h;
        start[axis] = at;
        match Datatype::subarray_3d(self.sizes(), sub, start) {
            Ok(t) => t,
            Err(_) => Datatype::contiguous(0), // Not reached: inside the array.
        }
    }

    /// The interior points along `face` that a neighbour there needs.
    pub const fn edge(&self, face: Face) -> Datatype {
        let (axis, high) = face.axis();
        let at = if high { self.dims[axis] } else { self.halo };
        self.slab(face, at)
    }

    /// The frame along `face`: where the neighbour there puts its edge.
    pub const fn frame(&self, face: Face) -> Datatype {
        let (axis, high) = face.axis();
        let at = if high { self.dims[axis] + self.halo } else { 0 };
        self.slab(face, at)
    }
}
