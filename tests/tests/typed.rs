//! Typed transfers on one GPU (the emulator in CI): a column into a row,
//! a sub-block into another shape and a matrix transposed, against the elements MPI's
//! definitions name, at several rank counts; the bad calls are in
//! runtime.rs.

use dcuda::{RunConfig, Runtime};
use dcuda_rank_kernels::typed::{TypedArgs, TYPED_EXCHANGE};

/// What rank `me` of `size` holds after `typed_exchange` on `n × n`
/// matrices: its two result matrices.
fn expected(me: u32, size: u32, n: u32) -> Vec<u32> {
    let (nn, left) = ((n * n) as usize, (me + size - 1) % size);
    let value = |rank: u32, k: u32| rank * 100_000 + k;
    let mut out = vec![0u32; 3 * nn];
    // Row `left % n` of the first matrix: the left rank's column `left % n`.
    let c = left % n;
    for j in 0..n {
        out[(c * n + j) as usize] = value(left, j * n + c);
    }
    // The 2 × 3 block at (1, 2) of the left rank's matrix, element by
    // element in row-major order, into the 3 × 2 block at (3, 1).
    let wide: Vec<u32> = (1..3)
        .flat_map(|i| (2..5).map(move |j| i * n + j))
        .collect();
    let tall: Vec<u32> = (3..6)
        .flat_map(|i| (1..3).map(move |j| i * n + j))
        .collect();
    for (w, t) in wide.iter().zip(&tall) {
        out[nn + *t as usize] = value(left, *w);
    }
    // The left rank's matrix, transposed.
    for i in 0..n {
        for j in 0..n {
            out[2 * nn + (j * n + i) as usize] = value(left, i * n + j);
        }
    }
    out
}

#[test]
fn a_column_goes_into_a_row_and_a_block_changes_shape() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    let n = 24u32; // 576 elements: more than four a thread
    for (ranks, threads) in [(1u32, 32u32), (2, 64), (5, 32)] {
        let nn = (n * n) as usize;
        let data = rt.alloc::<u32>(ranks as usize * nn).unwrap();
        let out = rt.alloc::<u32>(ranks as usize * 3 * nn).unwrap();
        let args = TypedArgs {
            data: data.slice(),
            out: out.slice(),
            n,
        };
        // SAFETY: n² words of data and 3n² of results per rank.
        unsafe {
            module.run(
                &TYPED_EXCHANGE,
                &RunConfig::new(threads).ranks(ranks),
                &args,
            )
        }
        .unwrap();
        let got = out.download().unwrap();
        for me in 0..ranks {
            let mine = &got[me as usize * 3 * nn..(me as usize + 1) * 3 * nn];
            assert_eq!(mine, &expected(me, ranks, n)[..], "rank {me} of {ranks}");
        }
    }
}
