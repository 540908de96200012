//! Why a [`Datatype`](crate::Datatype) or an [`Indexed`](crate::Indexed)
//! layout could not be made.

/// Why a datatype could not be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeError {
    /// A subarray's start plus its size passes the array's size in
    /// dimension `dim`: `start + subsize > size`.
    SubarrayOutside {
        /// The dimension (0 is the slowest).
        dim: u32,
        /// Its start.
        start: u32,
        /// Its subsize.
        subsize: u32,
        /// The array's size there.
        size: u32,
    },
    /// A vector of a datatype that already has three levels.
    TooDeep,
    /// The datatype reaches past 2⁶³ elements.
    TooLarge,
    /// An [`Indexed`](crate::Indexed) layout's `firsts` must have one
    /// entry more than its `displacements`.
    IndexLengths {
        /// Entries of `firsts`.
        firsts: u64,
        /// Entries of `displacements`.
        displacements: u64,
    },
}

impl core::fmt::Display for TypeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            TypeError::SubarrayOutside {
                dim,
                start,
                subsize,
                size,
            } => write!(
                f,
                "subarray dimension {dim}: start {start} + subsize {subsize} passes the size {size}"
            ),
            TypeError::TooDeep => {
                write!(
                    f,
                    "a datatype has at most three levels of blocks: this vector would make four"
                )
            }
            TypeError::TooLarge => write!(f, "the datatype reaches past 2^63 elements"),
            TypeError::IndexLengths {
                firsts,
                displacements,
            } => write!(
                f,
                "an indexed layout has {firsts} firsts for {displacements} displacements: it needs one more first than displacements"
            ),
        }
    }
}
