//! The 3D face exchange (`halo_3d`) checked against the points each
//! frame should hold, on one process (tests/tests/typed.rs) and across
//! processes (`world_checks`, where faces to other processes' blocks go
//! through the hosts as pieces the target's host places plane by plane,
//! a 3D copy a piece).

use crate::comms::Layout;
use dcuda::{Module, RunConfig, Runtime};
use dcuda_rank_kernels::typed::{share, Halo3Args, HALO_3D};

/// What rank `at`'s block array holds after `halo_3d`: its interior,
/// and in each face of its frame the neighbour's points beside it
/// (edges and corners of the frame zero).
fn expected(args: &Halo3Args, at: [u32; 3]) -> Vec<u32> {
    let [pz, py, px] = args.ranks;
    let counts = [pz, py, px];
    let h = args.halo as i64;
    let dims = |at: [u32; 3]| -> [i64; 3] {
        [0, 1, 2].map(|k| share(args.grid[k], counts[k], at[k]) as i64)
    };
    let n = dims(at);
    let s = n.map(|v| v + 2 * h);
    let rank = |a: [u32; 3]| (a[0] * py + a[1]) * px + a[2];
    let code = |r: u32, p: [i64; 3]| r * 1_000_000 + (p[0] * 10_000 + p[1] * 100 + p[2]) as u32;
    let mut out = vec![0u32; (s[0] * s[1] * s[2]) as usize];
    for z in -h..n[0] + h {
        for y in -h..n[1] + h {
            for x in -h..n[2] + h {
                let p = [z, y, x];
                let outside: Vec<usize> = (0..3).filter(|&k| p[k] < 0 || p[k] >= n[k]).collect();
                let value = match outside[..] {
                    [] => code(rank(at), p),
                    [k] => {
                        let mut to = at;
                        let mut q = p;
                        if p[k] < 0 && at[k] > 0 {
                            to[k] -= 1;
                            q[k] += dims(to)[k];
                            code(rank(to), q)
                        } else if p[k] >= n[k] && at[k] + 1 < counts[k] {
                            to[k] += 1;
                            q[k] -= n[k];
                            code(rank(to), q)
                        } else {
                            0
                        }
                    }
                    _ => 0,
                };
                out[(((z + h) * s[1] + y + h) * s[2] + x + h) as usize] = value;
            }
        }
    }
    out
}

/// Runs `halo_3d` on a `grid` of points split over `ranks` (both z, y, x;
/// the ranks' product is the world's size) with frames `halo` wide, this
/// process holding world ranks `first..first + here`, and checks its
/// blocks. A block with its frame must fit 16³ points.
pub fn check_halo_3d(
    rt: &Runtime,
    module: &Module,
    (here, first, world): Layout,
    (grid, ranks, halo): ([u32; 3], [u32; 3], u32),
) -> Result<(), String> {
    let e = |e: dcuda::Error| e.to_string();
    let fits = (0..3).all(|k| grid[k].div_ceil(ranks[k]) + 2 * halo <= 16);
    if ranks.iter().product::<u32>() != world || !fits {
        return Err(format!(
            "halo_3d: {ranks:?} ranks of {grid:?} for a world of {world}"
        ));
    }
    let stride = 16 * 16 * 16;
    let blocks = rt.alloc::<u32>((here * stride) as usize).map_err(e)?;
    let args = Halo3Args {
        blocks: blocks.slice(),
        stride,
        grid,
        ranks,
        halo,
    };
    // SAFETY: 16³ words a rank, as many as the largest block the caller
    // may ask for.
    unsafe { module.run(&HALO_3D, &RunConfig::new(32).ranks(here), &args) }.map_err(e)?;
    let got = blocks.download().map_err(e)?;
    for id in 0..here {
        let me = first + id;
        let at = [
            me / (ranks[1] * ranks[2]),
            me / ranks[2] % ranks[1],
            me % ranks[2],
        ];
        let want = expected(&args, at);
        let start = (id * stride) as usize;
        if got[start..start + want.len()] != want[..] {
            return Err(format!(
                "halo_3d: rank {at:?} of {ranks:?}, halo {halo}: wrong frame"
            ));
        }
    }
    Ok(())
}
