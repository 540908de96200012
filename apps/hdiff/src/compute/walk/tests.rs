//! The walks' unit tests, on the host.
use super::*;
use std::vec;

/// Every point of the band whose column is in `xs`, once, for bands,
/// widths that end mid-task and warps that do or do not divide the
/// tasks.
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
                for thread in 0..threads {
                    let walk = Walk {
                        thread,
                        threads,
                        order: Order::Across,
                        prefetch: 1,
                        wrap: Wrap::None,
                    };
                    let load = |c: usize, x: u32| {
                        assert_eq!(c % w % nx as usize, x as usize);
                        c
                    };
                    let ahead = |c: usize| {
                        assert!(c >= w && c < (band + 1) * w, "ahead of the band: {c}");
                        [core::ptr::null(); 5]
                    };
                    across(shape, rows, xs, walk, (load, ahead), |c, _, v: usize| {
                        assert_eq!(c, v);
                        seen[c] += 1;
                    });
                }
                for (c, n) in seen.iter().enumerate() {
                    let (j, x) = (c / w, (c % w) as u32 % nx);
                    let inside = j >= rows.0 && j < rows.1 && x >= xs.0 && x < xs.1;
                    assert_eq!(
                        *n, inside as u32,
                        "point {c}: {nx}×{nz}, band {band}, {threads} threads"
                    );
                }
            }
        }
    }
}
