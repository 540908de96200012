//! The claims walk against the stride walk (which mirrors as it stores)
//! on the host, the claims mirroring as they store or, as the programs
//! do, walking fields without edges and mirroring in a pass after them:
//! every thread an OS thread, all claiming at once, so that the claims
//! interleave as the scheduler likes (the emulator runs a rank's threads
//! one after another).

use super::*;
use proptest::prelude::*;
use std::vec::Vec;

/// The fields of a `width` × `height` grid and a state to step: a smooth
/// excitation and recovery, the ghost points mirrored as the programs
/// start.
fn grid(width: u32, height: u32, edges: u32) -> (Fields, Vec<f64>, Vec<f64>) {
    let fields = Fields {
        width,
        height,
        edges,
    };
    let p = fields.pitch();
    let (mut e, mut r) = (std::vec![0.0; fields.len()], std::vec![0.0; fields.len()]);
    for j in 0..height as usize + 2 {
        for i in 0..p {
            e[j * p + i] = ((i * 7 + j * 3) % 11) as f64 / 11.0;
            r[j * p + i] = ((i * 5 + j * 13) % 7) as f64 / 70.0;
        }
    }
    (fields, e, r)
}

fn slice(v: &mut [f64]) -> DeviceSlice<f64> {
    // SAFETY: the vector outlives every use in the test that made it.
    unsafe { DeviceSlice::from_raw_parts(v.as_mut_ptr(), v.len()) }
}

/// A grid's two excitation fields and its recovery.
type Grid = (Vec<f64>, Vec<f64>, Vec<f64>);

/// `steps` steps of `rect` by the stride walk (one thread after another)
/// and by claims (`threads` OS threads at once, the counters starting at
/// `start`; by fields without edges and then the mirror pass if
/// `mirror_pass`); both grids afterwards, and the counters.
fn both_walks(
    (width, height, edges): (u32, u32, u32),
    rect: Rect,
    (threads, mirror_pass): (u32, bool),
    steps: u32,
    start: u32,
) -> (Grid, Grid, [u32; 32]) {
    let s = TimeStep::for_grid(width.max(height));
    let (fields, e0, r0) = grid(width, height, edges);
    let mut stride = (e0.clone(), e0.clone(), r0.clone());
    let mut claims = (e0.clone(), e0, r0);
    let counters: Vec<u32> = std::vec![start; 32];
    for k in 0..steps {
        let (a, b, r) = &mut stride;
        let state = if k % 2 == 0 {
            (slice(a), slice(b), slice(r))
        } else {
            (slice(b), slice(a), slice(r))
        };
        for t in 0..threads as usize {
            let walk = Walk {
                thread: t,
                threads: threads as usize,
                batch: 1,
            };
            // SAFETY: one thread at a time, each its own points.
            unsafe { step(fields, state, rect, s, walk) };
        }
        let (a, b, r) = &mut claims;
        let state = if k % 2 == 0 {
            (slice(a), slice(b), slice(r))
        } else {
            (slice(b), slice(a), slice(r))
        };
        let base = counters.as_ptr() as usize;
        let walked = if mirror_pass {
            Fields { edges: 0, ..fields }
        } else {
            fields
        };
        // All threads claim at once.
        let go = std::sync::Barrier::new(threads as usize);
        std::thread::scope(|scope| {
            for t in 0..threads {
                let (state, fields, rect, s, go) = (&state, &walked, &rect, &s, &go);
                scope.spawn(move || {
                    go.wait();
                    let lane = t % 32;
                    let claims = Claims {
                        counter: (base as *mut u32).wrapping_add(lane as usize),
                        lane,
                        base: start
                            .wrapping_add(k.wrapping_mul(Claims::per_step(rect, threads, lane))),
                    };
                    // SAFETY: each point is claimed by one thread; the
                    // counters are atomics; nothing else runs. Half the
                    // threads ask for their next chunk's lines ahead, as
                    // the rank kernel does: the same points, stepped alike.
                    unsafe {
                        if t % 2 == 0 {
                            step_claimed::<true>(fields, state, rect, s, &claims)
                        } else {
                            step_claimed::<false>(fields, state, rect, s, &claims)
                        }
                    };
                });
            }
        });
        // Then the ghost points, as the programs do once every thread's
        // points are stored.
        if mirror_pass {
            for t in 0..threads {
                // SAFETY: one thread at a time; the claims are done.
                unsafe { crate::mirror_ghosts(&fields, state.1, &rect, (t, threads)) };
            }
        }
    }
    let mut after = [0u32; 32];
    after.copy_from_slice(&counters);
    (stride, claims, after)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Any rectangle of any grid, any sides on the boundary, any number of
    /// threads from 32 (not only whole warps), counters near their wrap,
    /// ghost points mirrored in the walk or after it: every step by claims
    /// is the stride walk's, bitwise, and moves
    /// each counter by exactly `per_step`.
    #[test]
    fn claims_step_every_point_once(
        width in 2u32..40,
        height in 2u32..30,
        edges in 0u32..16,
        corner in (0u32..40, 0u32..30),
        size in (1u32..40, 1u32..30),
        threads in prop::sample::select(std::vec![32u32, 33, 64, 100]),
        start in prop::sample::select(std::vec![0u32, u32::MAX - 40]),
        mirror_pass in any::<bool>(),
    ) {
        let x0 = 1 + corner.0 % width;
        let y0 = 1 + corner.1 % height;
        let (x1, y1) = ((x0 + size.0).min(width + 1), (y0 + size.1).min(height + 1));
        let rect = Rect { y0, y1, x0, x1 };
        let steps = 3;
        let (stride, claims, after) = both_walks((width, height, edges), rect, (threads, mirror_pass), steps, start);
        let bits = |v: &Vec<f64>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(&stride.0), bits(&claims.0));
        prop_assert_eq!(bits(&stride.1), bits(&claims.1));
        prop_assert_eq!(bits(&stride.2), bits(&claims.2));
        for (lane, &c) in after.iter().enumerate() {
            let moved = Claims::per_step(&rect, threads, lane as u32).wrapping_mul(steps);
            prop_assert_eq!(c, start.wrapping_add(moved), "lane {}", lane);
        }
    }
}
