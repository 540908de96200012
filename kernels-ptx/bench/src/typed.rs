//! Typed transfers against hand-written packing (`bench_typed`): a column
//! of a matrix and a sub-block of a 3D array, put between two ranks in a
//! ping-pong or a stream, six ways, each way a kernel of its own.

#[cfg(not(target_arch = "nvptx64"))]
use dcuda_device::kernel::RankKernel;
use dcuda_device::{rank, Datatype, DeviceSlice, Rank, Window};

/// Arguments of the [`TYPED_BENCH_WAYS`] kernels.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TypedBenchArgs {
    /// 0: column 1 of an `n × n` matrix; 1: the 64³ block at (64, 64, 64)
    /// of an `n³` array; 2: the 128³ block there.
    pub shape: u32,
    /// The array's side.
    pub n: u32,
    /// Timed batches (after one warm-up batch).
    pub batches: u32,
    /// Round trips per batch.
    pub iters: u32,
    /// Transfers a round trip: 1, a ping-pong (latency); more, a stream
    /// of that many from world rank 0, the last notified, answered with a
    /// notification (bandwidth, as OSU's `put_bw` measures it).
    pub window: u32,
    /// Per device rank: the array.
    pub array: DeviceSlice<f32>,
    /// Per device rank: the moved elements, contiguous.
    pub staging: DeviceSlice<f32>,
    /// World rank 0 writes each batch's nanoseconds here.
    pub out: DeviceSlice<u64>,
}

const DATA: u32 = 3;
const ACK: u32 = 4;

/// The side of a block shape, as a power of two: 64 (shape 1) or 128.
fn side_log(shape: u32) -> u32 {
    if shape == 1 {
        6
    } else {
        7
    }
}

/// The shape as a datatype.
fn datatype(shape: u32, n: u32) -> Datatype {
    let t = if shape == 0 {
        Datatype::vector(n, 1, n as u64).shifted(1)
    } else {
        let side = 1 << side_log(shape);
        Datatype::subarray_3d([n; 3], [side; 3], [64; 3])
    };
    match t {
        Ok(t) => t,
        Err(_) => panic!("the bench's shapes fit"),
    }
}

/// Where element `e` of the shape lies in the array: the hand-written
/// index of a pack kernel that knows its shape.
#[inline(always)]
fn index(shape: u32, n: usize, e: usize) -> usize {
    if shape == 0 {
        e * n + 1
    } else {
        let b = side_log(shape);
        let m = (1 << b) - 1;
        let (x, y, z) = (e & m, (e >> b) & m, e >> (2 * b));
        ((64 + z) * n + 64 + y) * n + 64 + x
    }
}

/// Copies between the array and the staging, every thread a share, four
/// elements in flight a thread (as the typed copy has): `pack` into the
/// staging, else out of it.
fn copy(
    rank: &mut Rank,
    args: &TypedBenchArgs,
    (array, staging): (DeviceSlice<f32>, DeviceSlice<f32>),
    pack: bool,
) {
    let (threads, n, shape) = (
        rank.threads_per_rank() as usize,
        args.n as usize,
        args.shape,
    );
    let len = staging.len();
    rank.threads(|t| {
        let (a, s) = (array.as_mut_ptr(), staging.as_mut_ptr());
        // SAFETY: every index is inside the array (the host sized it for
        // the shape) and every `e` inside the staging; each element is
        // one thread's.
        let (from, to, into_array) = if pack {
            (a as *const f32, s, false)
        } else {
            (s as *const f32, a, true)
        };
        let place = |e: usize| {
            if into_array {
                (e, index(shape, n, e))
            } else {
                (index(shape, n, e), e)
            }
        };
        let mut e = t.index() as usize;
        while e + 3 * threads < len {
            let at = [e, e + threads, e + 2 * threads, e + 3 * threads].map(place);
            unsafe {
                let v = at.map(|(f, _)| from.add(f).read());
                for ((_, d), v) in at.into_iter().zip(v) {
                    to.add(d).write(v);
                }
            }
            e += 4 * threads;
        }
        while e < len {
            let (f, d) = place(e);
            unsafe { to.add(d).write(from.add(f).read()) };
            e += threads;
        }
    });
}

/// The shape's datatype and the staging's, made once (as MPI codes commit
/// theirs) and used for every transfer.
#[derive(Clone, Copy)]
struct Types {
    shape: Datatype,
    staging: Datatype,
}

/// Sends the shape to world rank `peer` in way `MODE` (see
/// [`TYPED_BENCH_WAYS`]); `notified` the last of a stream (or a
/// ping-pong's one).
fn transfer<const MODE: u32>(
    rank: &mut Rank,
    (args, types): (&TypedBenchArgs, Types),
    wins: (Window<f32>, Window<f32>),
    (peer, notified): (u32, bool),
    local: (DeviceSlice<f32>, DeviceSlice<f32>),
) {
    let (t, all) = (types.shape, types.staging);
    match (MODE, notified) {
        (0, true) => rank.put_notify_typed(wins.0, peer, (0, t), (local.0, t), DATA),
        (0, false) => rank.put_typed(wins.0, peer, (0, t), (local.0, t)),
        (1, _) => {
            copy(rank, args, local, true);
            if notified {
                rank.put_notify(wins.1, peer, 0, local.1, DATA);
            } else {
                rank.put(wins.1, peer, 0, local.1);
            }
        }
        (3, _) => {
            if notified {
                rank.put_notify_typed(wins.1, peer, (0, all), (local.1, all), DATA);
            } else {
                rank.put_typed(wins.1, peer, (0, all), (local.1, all));
            }
        }
        (4 | 5, _) => {
            let (win, there, here) = if MODE == 4 {
                (wins.1, all, (local.0, t))
            } else {
                (wins.0, t, (local.1, all))
            };
            if notified {
                rank.put_notify_typed(win, peer, (0, there), here, DATA);
            } else {
                rank.put_typed(win, peer, (0, there), here);
            }
        }
        (_, true) => rank.put_notify(wins.1, peer, 0, local.1, DATA),
        (_, false) => rank.put(wins.1, peer, 0, local.1),
    }
}

/// Waits for the shape from the peer (and unpacks it in mode 1, once for
/// each transfer of a stream).
fn arrive<const MODE: u32>(
    rank: &mut Rank,
    args: &TypedBenchArgs,
    local: (DeviceSlice<f32>, DeviceSlice<f32>),
) {
    rank.wait_notifications(DATA, 1);
    if MODE == 1 {
        for _ in 0..args.window.max(1) {
            copy(rank, args, local, false);
        }
    }
}

/// One round trip of world rank `me` with `peer`: a ping-pong, or a
/// stream of `args.window` transfers from world rank 0 answered with a
/// notification.
fn round_trip<const MODE: u32>(
    rank: &mut Rank,
    (args, types): (&TypedBenchArgs, Types),
    wins: (Window<f32>, Window<f32>),
    (me, peer): (u32, u32),
    local: (DeviceSlice<f32>, DeviceSlice<f32>),
) {
    let world = rank.world();
    if args.window <= 1 {
        if me == 0 {
            transfer::<MODE>(rank, (args, types), wins, (peer, true), local);
            arrive::<MODE>(rank, args, local);
        } else {
            arrive::<MODE>(rank, args, local);
            transfer::<MODE>(rank, (args, types), wins, (peer, true), local);
        }
    } else if me == 0 {
        for w in 0..args.window {
            transfer::<MODE>(
                rank,
                (args, types),
                wins,
                (peer, w + 1 == args.window),
                local,
            );
        }
        rank.wait_notifications(ACK, 1);
    } else {
        arrive::<MODE>(rank, args, local);
        rank.notify(world, peer, ACK);
    }
}

/// The ways, one kernel each, in the order `bench_typed` numbers them:
/// 0, `put_notify_typed` with the shape's datatype on both sides; 1, the
/// rank's threads pack it into staging, `put_notify` of the staging, the
/// target's threads unpack it; 2, `put_notify` of as many contiguous
/// elements (the reference); 3, the same elements as 2 by
/// `put_notify_typed` with contiguous datatypes (what the typed call
/// costs besides its copy); 4, the shape into the peer's staging,
/// contiguous (scattered loads, a gather); 5, the staging, contiguous,
/// into the shape of the peer's array (scattered stores, a scatter).
///
/// A kernel a way, as an application has only its own calls: in one
/// kernel of all six, ptxas kept the typed call's path in 255 registers
/// only by spilling (1.3 KB of spill loads in the transfer), and a way's
/// time moved with the code of the others.
#[cfg(not(target_arch = "nvptx64"))]
pub const TYPED_BENCH_WAYS: [&RankKernel<TypedBenchArgs>; 6] = [
    &TYPED_BENCH_TYPED,
    &TYPED_BENCH_PACKED,
    &TYPED_BENCH_CONTIGUOUS,
    &TYPED_BENCH_TYPED_CONTIGUOUS,
    &TYPED_BENCH_GATHER,
    &TYPED_BENCH_SCATTER,
];

/// A rank kernel running way `$mode` of [`TYPED_BENCH_WAYS`].
macro_rules! way_kernel {
    ($name:ident, $mode:literal) => {
        #[doc = concat!("Way ", stringify!($mode), " of [`TYPED_BENCH_WAYS`].")]
        #[rank]
        pub fn $name(rank: &mut Rank, args: &TypedBenchArgs) {
            typed_bench::<$mode>(rank, args)
        }
    };
}

way_kernel!(typed_bench_typed, 0);
way_kernel!(typed_bench_packed, 1);
way_kernel!(typed_bench_contiguous, 2);
way_kernel!(typed_bench_typed_contiguous, 3);
way_kernel!(typed_bench_gather, 4);
way_kernel!(typed_bench_scatter, 5);

/// World rank 0 and the last world rank exchange the shape `iters` times
/// a batch (ping-pongs or streams) in way `MODE`; every other rank waits
/// in the final barrier.
#[inline(always)]
fn typed_bench<const MODE: u32>(rank: &mut Rank, args: &TypedBenchArgs) {
    let world = rank.world();
    let (me, last, dev) = (
        world.rank(),
        world.size() - 1,
        rank.device().rank() as usize,
    );
    let shape = datatype(args.shape, args.n);
    let elems = shape.size() as usize;
    let types = Types {
        shape,
        staging: Datatype::contiguous(elems as u32),
    };
    let array = args
        .array
        .chunk(dev, args.array.len() / rank.device().size() as usize);
    let staging = args.staging.chunk(dev, elems);
    let wins = (
        rank.win_create(world, array),
        rank.win_create(world, staging),
    );
    if last > 0 && (me == 0 || me == last) {
        let peer = last - me;
        for b in 0..=args.batches {
            let t0 = rank.timestamp();
            for _ in 0..args.iters {
                round_trip::<MODE>(rank, (args, types), wins, (me, peer), (array, staging));
            }
            let t1 = rank.timestamp();
            if me == 0 && b > 0 {
                rank.single(|_| {
                    // SAFETY: one element per batch, written by one thread.
                    unsafe { args.out.write(b as usize - 1, t1 - t0) };
                    0u32
                });
            }
        }
    }
    rank.barrier(world);
    rank.win_free(wins.1);
    rank.win_free(wins.0);
}
