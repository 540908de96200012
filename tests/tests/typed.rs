//! Typed transfers on one GPU (the emulator in CI): a column into a row,
//! a sub-block into another shape, a matrix transposed, and columns moved
//! in 16-byte units, against the elements MPI's
//! definitions name, at several rank counts; the bad calls are in
//! runtime.rs.

use dcuda::Runtime;

#[test]
fn a_column_goes_into_a_row_and_a_block_changes_shape() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    for (ranks, threads) in [(1u32, 32u32), (2, 64), (5, 32)] {
        // 24²: 576 elements, more than four a thread.
        dcuda_tests::typed::check_typed(&rt, &module, (ranks, 0, ranks), (threads, 24))
            .unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn gathers_scatters_and_blocks_of_different_lengths_land_where_listed() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    for (ranks, threads) in [(1u32, 32u32), (3, 64)] {
        dcuda_tests::typed::check_indexed(&rt, &module, (ranks, 0, ranks), (threads, 600, 300))
            .unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

mod halo {
    use dcuda::{RunConfig, Runtime};
    use dcuda_rank_kernels::typed::{share, HaloArgs, HALO_2D};

    /// What rank `(i, j)`'s tile array holds after `halo_2d`: its interior,
    /// and in its frame its neighbours' edges (corners zero).
    fn expected(args: &HaloArgs, (i, j): (u32, u32)) -> Vec<u32> {
        let [py, px] = args.ranks;
        let h = args.halo as i64;
        let (rows, cols) = (
            share(args.grid[0], py, i) as i64,
            share(args.grid[1], px, j) as i64,
        );
        let pitch = cols + 2 * h;
        let mut out = vec![0u32; (pitch * (rows + 2 * h)) as usize];
        let code = |rank: u32, r: i64, c: i64| rank * 10_000 + r as u32 * 100 + c as u32;
        for r in -h..rows + h {
            for c in -h..cols + h {
                let (north, south) = (r < 0, r >= rows);
                let (west, east) = (c < 0, c >= cols);
                let value = match (north, south, west, east) {
                    (false, false, false, false) => code(i * px + j, r, c),
                    (true, _, false, false) if i > 0 => {
                        let above = share(args.grid[0], py, i - 1) as i64;
                        code((i - 1) * px + j, above + r, c)
                    }
                    (_, true, false, false) if i + 1 < py => code((i + 1) * px + j, r - rows, c),
                    (false, false, true, _) if j > 0 => {
                        let left = share(args.grid[1], px, j - 1) as i64;
                        code(i * px + j - 1, r, left + c)
                    }
                    (false, false, _, true) if j + 1 < px => code(i * px + j + 1, r, c - cols),
                    _ => 0,
                };
                out[((r + h) * pitch + c + h) as usize] = value;
            }
        }
        out
    }

    #[test]
    fn halos_of_uneven_tiles_reach_the_frames_beside_them() {
        let rt = Runtime::new().unwrap();
        let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
        for (ranks, halo) in [([2u32, 3u32], 1u32), ([2, 3], 2), ([1, 1], 1), ([3, 1], 2)] {
            let args_for = |tiles| HaloArgs {
                tiles,
                stride: 30 * 30,
                grid: [9, 11],
                ranks,
                halo,
            };
            let count = ranks[0] * ranks[1];
            let tiles = rt.alloc::<u32>(count as usize * 900).unwrap();
            let args = args_for(tiles.slice());
            // SAFETY: 900 words a rank, more than any tile of a 9 × 11 grid
            // with a frame of 2.
            unsafe { module.run(&HALO_2D, &RunConfig::new(32).ranks(count), &args) }.unwrap();
            let got = tiles.download().unwrap();
            for me in 0..count {
                let (i, j) = (me / ranks[1], me % ranks[1]);
                let want = expected(&args, (i, j));
                let mine = &got[me as usize * 900..me as usize * 900 + want.len()];
                assert_eq!(mine, &want[..], "rank ({i}, {j}) of {ranks:?}, halo {halo}");
            }
        }
    }
}

mod halo_3d {
    use dcuda::Runtime;

    #[test]
    fn faces_of_uneven_blocks_reach_the_frames_beside_them() {
        let rt = Runtime::new().unwrap();
        let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
        for (ranks, halo) in [([2u32, 2u32, 2u32], 1u32), ([1, 3, 2], 2), ([1, 1, 1], 1)] {
            let count = ranks.iter().product::<u32>();
            let shape = ([7, 6, 9], ranks, halo);
            dcuda_tests::halo3::check_halo_3d(&rt, &module, (count, 0, count), shape)
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
