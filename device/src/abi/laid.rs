//! A piece of a typed transfer through the host, in the layout its
//! elements have at the target: the header a rank writes at the start of
//! a staging half when it hands the host a put or a get in a layout
//! ([`Op::PutLaid`](super::Op::PutLaid), [`Op::GetLaid`](super::Op::GetLaid)).
//! The host moves the whole piece as one access and places or gathers
//! its elements at the target itself, so that a piece of many short runs
//! (the rows of a sub-block, a column) is one message, not one a run. Its
//! data follows the header. The host checks all of it before use.

use bytemuck::{Pod, Zeroable};

/// Bytes of a [`LaidPiece`], before the piece's data.
pub const LAID_HEADER: usize = 64;

/// Which elements of the target's datatype a piece holds, and where: the
/// datatype's words ([`Datatype::of_piece`](crate::Datatype::of_piece)
/// checks them), its elements `first..first + count`, each `elem` bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct LaidPiece {
    /// The datatype's block length.
    pub block: u32,
    /// Its counts, fastest level first.
    pub counts: [u32; 3],
    /// Its strides, in elements.
    pub strides: [u64; 3],
    /// Its first element's offset.
    pub start: u64,
    /// The piece's first element, counted along the datatype.
    pub first: u64,
    /// Bytes of one element.
    pub elem: u32,
    /// Elements in the piece.
    pub count: u32,
}

const _: () = assert!(core::mem::size_of::<LaidPiece>() == LAID_HEADER);
