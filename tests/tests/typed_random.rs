//! Typed puts and gets of random datatypes on the emulator (proptest):
//! every element lands where the two datatypes' offsets say, whatever
//! path the copy takes (elements or 16-byte units, one cursor or two,
//! any thread count), a rank's own packing by cursors agrees, and a target
//! window too small for the datatype is an error naming the call, never a
//! write past it.

use dcuda::{Datatype, Module, RunConfig, Runtime};
use dcuda_rank_kernels::typed_random::{RandomTypedArgs, TYPED_RANDOM};
use proptest::prelude::*;
use std::sync::OnceLock;

/// `counts[1]` repeats of `counts[0]` blocks of `block` elements, each
/// stride reaching past the level below it by `pads` (so no element
/// twice: a side that is written), from `start`; `scale` multiplies
/// every length (4: whole 16-byte units of `u32`).
fn layout(block: u32, counts: [u32; 2], strides: [u64; 2], start: u64, scale: u32) -> Datatype {
    let (block, k) = (block * scale, scale as u64);
    let inner = Datatype::vector(counts[0], block, strides[0] * k);
    Datatype::vector_of(counts[1], strides[1] * k, inner)
        .and_then(|t| t.shifted(start * k))
        .unwrap()
}

/// A shape of `factors[0] × factors[1] × factors[2]` elements whose
/// strides leave `pads` between levels.
fn unique(factors: [u32; 3], pads: [u64; 2], start: u64, scale: u32) -> Datatype {
    let s0 = factors[0] as u64 + pads[0];
    let s1 = factors[1] as u64 * s0 + pads[1];
    layout(factors[0], [factors[1], factors[2]], [s0, s1], start, scale)
}

fn module() -> &'static (Runtime, Module) {
    static SHARED: OnceLock<(Runtime, Module)> = OnceLock::new();
    SHARED.get_or_init(|| {
        let rt = Runtime::new().unwrap();
        let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
        (rt, module)
    })
}

/// What a run leaves: rank 1's two results, rank 0's (which must stay
/// zero), and rank 0's data packed by its threads' cursors.
type Results = (Vec<u32>, Vec<u32>, Vec<u32>);

/// Runs `typed_random` on two ranks of `threads` threads.
fn run(
    (from, to): (Datatype, Datatype),
    out_len: usize,
    threads: u32,
    put_only: bool,
) -> Result<Results, String> {
    let (rt, module) = module();
    let data_len = (from.extent() as usize).next_multiple_of(4).max(4);
    let data: Vec<u32> = (0..2 * data_len)
        .map(|k| if k < data_len { k as u32 + 1 } else { 0 })
        .collect();
    let e = |e: dcuda::Error| e.to_string();
    let data = rt.upload(&data).map_err(e)?;
    let out = rt.alloc::<u32>(4 * out_len).map_err(e)?;
    let size = from.size() as usize;
    let packed = rt.alloc::<u32>(2 * size.max(1)).map_err(e)?;
    let args = RandomTypedArgs {
        from,
        to,
        data: data.slice(),
        out: out.slice(),
        data_len: data_len as u32,
        out_len: out_len as u32,
        put_only: put_only as u32,
        packed: packed.slice(),
    };
    let config = RunConfig::new(threads).ranks(2);
    // SAFETY: data_len words of data and 2 out_len of results a rank.
    unsafe { module.run(&TYPED_RANDOM, &config, &args) }.map_err(e)?;
    let got = out.download().map_err(e)?;
    let packed = packed.download().map_err(e)?;
    let ones = got[2 * out_len..].to_vec();
    Ok((ones, got[..2 * out_len].to_vec(), packed[..size].to_vec()))
}

/// What `to` over `out_len` zero words holds after element `e` of `from`
/// over rank 0's data (element `k` is `k + 1`) went to element `e` of it.
fn expected(from: &Datatype, to: &Datatype, out_len: usize) -> Vec<u32> {
    let mut out = vec![0; out_len];
    for e in 0..from.size() {
        out[to.offset(e) as usize] = from.offset(e) as u32 + 1;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_datatypes_move_each_element_to_its_place(
        factors in [1u32..9, 1u32..12, 1u32..9],
        order in 0usize..6,
        from_strides in [0u64..30, 0u64..60],
        pads in [0u64..4, 0u64..9],
        starts in [0u64..12, 0u64..12],
        units in any::<bool>(),
        same in any::<bool>(),
        threads in prop::sample::select(vec![32u32, 64, 96, 128]),
        short in prop::bool::weighted(0.15),
    ) {
        let scale = if units { 4 } else { 1 };
        let [a, b, c] = factors;
        // The written side: the same elements in another factorization.
        let shapes = [[a, b, c], [a, c, b], [b, a, c], [b, c, a], [c, a, b], [c, b, a]];
        let to = unique(shapes[order], pads, starts[1], scale);
        // The read side may name an element twice; or, `same`, it is the
        // written side's shape elsewhere (one cursor for both).
        let from = if same {
            unique(shapes[order], pads, starts[0], scale)
        } else {
            layout(a, [b, c], from_strides, starts[0], scale)
        };
        prop_assert_eq!(from.size(), to.size());
        let need = to.extent() as usize;
        let out_len = need.next_multiple_of(4);
        if short {
            // One word short of the datatype's reach: refused, nothing moved.
            let message = run((from, to), need - 1, threads, true).unwrap_err();
            prop_assert!(
                message.contains("rank 0: put_typed")
                    && message.contains("outside the target window of rank 1"),
                "{}", message
            );
        } else {
            let (ones, zeros, packed) =
                run((from, to), out_len, threads, false).map_err(TestCaseError::fail)?;
            let want = expected(&from, &to, out_len);
            prop_assert_eq!(&ones[..out_len], &want[..], "the put");
            prop_assert_eq!(&ones[out_len..], &want[..], "the get");
            prop_assert!(zeros.iter().all(|&z| z == 0));
            let want: Vec<u32> = (0..from.size()).map(|e| from.offset(e) as u32 + 1).collect();
            prop_assert_eq!(packed, want, "packed by cursors");
        }
    }
}
