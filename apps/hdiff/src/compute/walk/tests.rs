//! The walks' unit tests, on the host.
use super::*;
use dcuda_device::DeviceSlice;
use std::vec;

/// Every point of the band whose column is in `xs`, once, for bands,
/// widths that end mid-task and warps that do or do not divide the
/// tasks; and the mirrored row's points once more, each where the mirror
/// says.
#[test]
fn across_takes_each_point_of_the_band_once() {
    for (nx, nz) in [
        (5, 1),
        (13, 3),
        (31, 2),
        (33, 2),
        (40, 2),
        (64, 1),
        (100, 1),
    ] {
        for band in [1usize, 2, 3, 7, 10, 33] {
            for threads in [32usize, 64, 96, 256, 1024] {
                let shape = Shape {
                    nx,
                    nz,
                    rows: band as u32 + 2,
                };
                let (w, rows, xs) = (shape.width(), (1, band + 1), (1, nx - 1));
                let mut seen = vec![0u32; shape.len()];
                // The first or the last row, stored again in `copy`.
                let mirrored = if band % 2 == 0 { rows.0 } else { rows.1 - 1 };
                let mut copy = vec![0f64; w];
                let mut copied = vec![0u32; w];
                let to = copy.as_mut_ptr();
                // SAFETY: `copy` outlives the walks; nothing is written.
                let slice = unsafe { DeviceSlice::from_raw_parts(to, w) };
                for thread in 0..threads {
                    let walk = Walk {
                        thread,
                        threads,
                        order: Order::Across,
                        prefetch: 1,
                        mirror: Mirror {
                            row: mirrored,
                            to: slice,
                        },
                    };
                    let load = |c: usize, x: u32| {
                        assert_eq!(c % w % nx as usize, x as usize);
                        c
                    };
                    let ahead = |c: usize| {
                        assert!(c >= w && c < (band + 1) * w, "ahead of the band: {c}");
                        [core::ptr::null(); 5]
                    };
                    let store = |c, _, v: usize| {
                        assert_eq!(c, v);
                        seen[c] += 1;
                    };
                    let also = |p: *mut f64, _, v: usize| {
                        let k = (p as usize - to as usize) / 8;
                        assert_eq!(v, mirrored * w + k, "mirrored where");
                        copied[k] += 1;
                    };
                    across(shape, rows, xs, walk, (load, ahead), (store, also));
                }
                for (c, n) in seen.iter().enumerate() {
                    let (j, x) = (c / w, (c % w) as u32 % nx);
                    let inside = j >= rows.0 && j < rows.1 && x >= xs.0 && x < xs.1;
                    assert_eq!(
                        *n, inside as u32,
                        "point {c}: {nx}×{nz}, band {band}, {threads} threads"
                    );
                }
                for (k, n) in copied.iter().enumerate() {
                    let x = k as u32 % nx;
                    assert_eq!(*n, (x >= xs.0 && x < xs.1) as u32, "mirrored point {k}");
                }
                drop(copy);
            }
        }
    }
}
