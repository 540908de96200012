//! Typed transfers between the ranks of one GPU (tests/tests/typed.rs):
//! a column into a row, and a sub-block into a differently shaped one.

use super::runtime_checks::fill;
use dcuda_device::{rank, Datatype, DeviceSlice, Rank, TypeError};

/// Arguments of [`typed_exchange`].
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TypedArgs {
    /// Per-rank `n × n` matrices, row-major: rank `r`'s element `k` is
    /// `r * 100000 + k`.
    pub data: DeviceSlice<u32>,
    /// Per-rank results: `3 n²` words, zero but for what arrives.
    pub out: DeviceSlice<u32>,
    /// The matrices' side (at least 6).
    pub n: u32,
}

/// A datatype the kernel's shapes always make.
fn made(t: Result<Datatype, TypeError>) -> Datatype {
    match t {
        Ok(t) => t,
        Err(_) => panic!("a datatype of the test's own shapes"),
    }
}

// ANCHOR: typed
/// Each rank puts column `me % n` of its matrix into row `me % n` of the
/// next rank's first result matrix, then gets the 2 × 3 block at (1, 2)
/// of the previous rank's matrix into the 3 × 2 block at (3, 1) of its
/// second result matrix (element `e` of one to element `e` of the other),
/// and the previous rank's whole matrix, transposed, into its third.
#[rank]
pub fn typed_exchange(rank: &mut Rank, args: &TypedArgs) {
    let world = rank.world();
    let (me, size, dev) = (world.rank(), world.size(), rank.device().rank());
    let n = args.n;
    let nn = (n * n) as usize;
    let data = args.data.chunk(dev as usize, nn);
    let out = args.out.chunk(dev as usize, 3 * nn);
    fill(rank, data, |k| me * 100_000 + k as u32);
    fill(rank, out, |_| 0);
    let (matrices, results) = (rank.win_create(world, data), rank.win_create(world, out));
    rank.barrier(world);
    let (left, right) = ((me + size - 1) % size, (me + 1) % size);
    let c = me % n;
    let column = made(Datatype::vector(n, 1, n as u64).shifted(c as u64));
    let row = Datatype::contiguous(n);
    rank.put_notify_typed(results, right, ((c * n) as usize, row), (data, column), 1);
    rank.wait_notifications(1, 1);
    let wide = made(Datatype::subarray_2d([n, n], [2, 3], [1, 2]));
    let tall = made(Datatype::subarray_2d([n, n], [3, 2], [3, 1]));
    rank.get_typed(matrices, left, (0, wide), (out.slice(nn..2 * nn), tall));
    // Row i of the left matrix into column i: a vector of columns.
    let transposed = made(Datatype::vector_of(n, 1, Datatype::vector(n, 1, n as u64)));
    let all = Datatype::contiguous(n * n);
    rank.get_typed(
        matrices,
        left,
        (0, all),
        (out.slice(2 * nn..3 * nn), transposed),
    );
    rank.barrier(world);
    rank.win_free(results);
    rank.win_free(matrices);
}
// ANCHOR_END: typed
