//! Checks of the runtime across processes; run it under `mpirun -np N`
//! (`examples/tests/world.rs` does, on the emulator). Every process runs
//! the same kernels as the single-device tests, with an uneven number of
//! ranks per process, and checks its own ranks' results against what the
//! world's ranks must have sent. Exits non-zero on the first mismatch.
//!
//! `world_checks abort` instead runs a kernel in which world rank 1 makes a
//! bad call while every other rank waits in a world barrier: the process of
//! rank 1 must report the call, every other process must report that
//! process's failure, and none may hang. `stop-peer` stops process 1
//! (SIGSTOP) mid-run and `panic` makes a rank of process 1 panic: both
//! must end the whole job with a message. `nvshmem` checks that window
//! accesses between processes take the NVSHMEM route
//! (`DCUDA_TRANSPORT=nvshmem`, kernels built with `DCUDA_NVSHMEM_BC`).

use dcuda::{DeviceBuffer, Module, RunConfig, Runtime};
use dcuda_device::abi::STAGE_HALF;
use dcuda_rank_kernels::collectives::{
    rank_value, RankCollectiveArgs, ALLREDUCE_BCAST, ROUND_RESULTS,
};
use dcuda_rank_kernels::runtime_checks::*;
use dcuda_tests::comms::{
    check_across, check_chunks, check_split_types, check_splits, device_rank, node_members,
};
use dcuda_tests::messages::check_messages;
use dcuda_tests::traced::check_traced_world;

mod failures;
mod nvshmem;
mod peer_messages;
mod split_phase;

type Check = Result<(), String>;
/// A named check.
type Named<'a> = (&'static str, Box<dyn Fn() -> Check + 'a>);

struct Run<'a> {
    module: &'a Module,
    rt: &'a Runtime,
    ranks: u32,
    first: u32,
    world: u32,
}

impl Run<'_> {
    fn buffers(&self, words: u32) -> (DeviceBuffer<u32>, DeviceBuffer<u32>) {
        let n = (self.ranks * words) as usize;
        (self.rt.alloc(n).unwrap(), self.rt.alloc(n).unwrap())
    }

    fn run(
        &self,
        kernel: &dcuda::RankKernel<CheckArgs>,
        words: u32,
        rounds: u32,
        case: u32,
    ) -> dcuda::Result<Vec<u32>> {
        let (data, out) = self.buffers(words);
        let args = CheckArgs {
            data: data.slice(),
            out: out.slice(),
            words,
            rounds,
            case,
        };
        let config = RunConfig::new(64).ranks(self.ranks);
        // SAFETY: the buffers hold `words` per rank of this process.
        unsafe { self.module.run(kernel, &config, &args) }?;
        out.download()
    }

    /// Every local rank's words against `want(world rank, word)`.
    fn expect(&self, what: &str, out: &[u32], words: u32, want: impl Fn(u32, u32) -> u32) -> Check {
        for local in 0..self.ranks {
            let me = self.first + local;
            for k in 0..words {
                let got = out[(local * words + k) as usize];
                if got != want(me, k) {
                    return Err(format!(
                        "{what}: world rank {me} word {k}: got {got}, want {}",
                        want(me, k)
                    ));
                }
            }
        }
        Ok(())
    }

    fn ring(&self, words: u32, rounds: u32) -> Check {
        let out = self
            .run(&RING_EXCHANGE, words, rounds, 0)
            .map_err(|e| e.to_string())?;
        let n = self.world;
        self.expect(
            &format!("ring_exchange of {words} words"),
            &out,
            words,
            |me, k| (me + n - 1) % n * 1000 + rounds - 1 + k,
        )
    }

    /// The ring through put targets: the rank's own copy to ranks of its
    /// device, the general put through the host to other processes.
    fn put_targets(&self, words: u32, rounds: u32) -> Check {
        use dcuda_rank_kernels::put_targets::{PUT_TARGET_RING, SMALL_WORDS};
        let out = self
            .run(&PUT_TARGET_RING, words, rounds, 0)
            .map_err(|e| e.to_string())?;
        let (n, big) = (self.world, words - SMALL_WORDS);
        self.expect(
            &format!("put_target_ring of {words} words"),
            &out,
            words,
            |me, k| {
                let prev = (me + n - 1) % n;
                if k < big {
                    prev * 1000 + rounds - 1 + k
                } else {
                    prev * 1000 + 777 + k
                }
            },
        )
    }

    fn notify(&self) -> Check {
        let rounds = 30;
        let out = self
            .run(&ALL_NOTIFY, 2, rounds, 0)
            .map_err(|e| e.to_string())?;
        self.expect(
            "all_notify",
            &out,
            2,
            |_, k| if k == 0 { 0 } else { rounds },
        )
    }

    /// `notify_each` to ranks of this device and of others (mapped GPUs,
    /// or through the host) in one call.
    fn notify_each(&self) -> Check {
        let rounds = 27;
        let out = self
            .run(&NOTIFY_EACH_ROUNDS, 2, rounds, 0)
            .map_err(|e| e.to_string())?;
        self.expect("notify_each_rounds", &out, 2, |_, k| {
            if k == 0 {
                0
            } else {
                rounds
            }
        })
    }

    fn get(&self) -> Check {
        let words = 70;
        let out = self
            .run(&NEIGHBOUR_GET, words, 0, 0)
            .map_err(|e| e.to_string())?;
        let n = self.world;
        self.expect("neighbour_get", &out, words, |me, k| {
            (me + n - 1) % n * 7 + k
        })
    }

    /// Allreduce and broadcast over the world (between processes) and over
    /// the device, against the host's computation; the `f64` sum must have
    /// the same bits on every local rank.
    fn collectives(&self) -> Check {
        let rounds = 5u32;
        for device in [0, 1] {
            let out = self
                .rt
                .alloc::<u64>((self.ranks * rounds) as usize * ROUND_RESULTS)
                .map_err(|e| e.to_string())?;
            let args = RankCollectiveArgs {
                rounds,
                device,
                out: out.slice(),
            };
            let config = RunConfig::new(64).ranks(self.ranks);
            // SAFETY: out holds ROUND_RESULTS words per rank and round.
            unsafe { self.module.run(&ALLREDUCE_BCAST, &config, &args) }
                .map_err(|e| e.to_string())?;
            let out = out.download().map_err(|e| e.to_string())?;
            // Communicator size, and the communicator rank of local rank 0.
            let (size, offset) = if device == 1 {
                (self.ranks, 0)
            } else {
                (self.world, self.first)
            };
            for round in 0..rounds {
                let values: Vec<u32> = (0..size).map(|r| rank_value(r, round)).collect();
                let root = round % size;
                let first_real = out[round as usize * ROUND_RESULTS + 4];
                for local in 0..self.ranks {
                    let at = ((local * rounds + round) as usize) * ROUND_RESULTS;
                    let got = &out[at..at + ROUND_RESULTS];
                    let want = [
                        values.iter().sum::<u32>() as u64,
                        *values.iter().min().unwrap() as u64,
                        *values.iter().max().unwrap() as u64,
                        values.iter().fold(0, |a, v| a ^ v) as u64,
                        first_real,
                        (root * 1000 + round) as u64,
                    ];
                    if got != want {
                        let me = offset + local;
                        return Err(format!("allreduce/bcast over the {} communicator, rank {me}, round {round}: got {got:?}, want {want:?}", if device == 1 { "device" } else { "world" }));
                    }
                }
                let exact: f64 = values.iter().map(|&v| v as f64 * 0.1).sum();
                let real = f64::from_bits(first_real);
                if (real - exact).abs() > 1e-9 {
                    return Err(format!("f64 allreduce, round {round}: {real} vs {exact}"));
                }
            }
        }
        Ok(())
    }

    /// This process's ranks, the first's world rank, the world's size.
    fn layout(&self) -> dcuda_tests::comms::Layout {
        (self.ranks, self.first, self.world)
    }

    /// Timers and logs across processes: each host times the world-wide
    /// phase and prints its own ranks' messages, named by world rank.
    fn host_services(&self) -> Check {
        let rounds = 10;
        let (data, out) = self.buffers(1);
        let args = CheckArgs {
            data: data.slice(),
            out: out.slice(),
            words: 1,
            rounds,
            case: 0,
        };
        let config = RunConfig::new(64).ranks(self.ranks);
        // SAFETY: the buffers hold one word per rank of this process.
        let report = unsafe { self.module.run(&HOST_SERVICES, &config, &args) }
            .map_err(|e| e.to_string())?;
        if report.timers.len() != 1 || report.timers[0].id != 7 {
            return Err(format!("timers: {:?}", report.timers));
        }
        let mut logged: Vec<u32> = report.logs.iter().map(|(r, _)| *r).collect();
        logged.sort_unstable();
        if logged != (0..self.ranks).collect::<Vec<_>>() {
            return Err(format!("logs from device ranks {logged:?}"));
        }
        for (r, text) in &report.logs {
            let world = self.first + r;
            if !text.starts_with(&format!("rank {world} pinged {rounds} times")) {
                return Err(format!("log of device rank {r}: {text}"));
            }
        }
        Ok(())
    }
}

fn main() {
    dcuda::log::init(); // dcuda's messages to standard error (DCUDA_LOG filters)
    let mode = std::env::args().nth(1).unwrap_or_default();
    let rt = Runtime::new().expect("runtime");
    let process = rt.job().map_or(0, |j| j.process());
    if mode == "fail-before-setup" && process == 1 {
        // A program error before the first collective step: the others
        // wait for this process in it.
        eprintln!("world_checks: process 1 fails before setup");
        std::process::exit(3);
    }
    let module = rt.load(&dcuda_tests::rank_ptx()).expect("module");
    // Uneven: 2 ranks on even processes, 3 on odd ones.
    let ranks = 2 + process % 2;
    let config = RunConfig::new(64).ranks(ranks);
    let info = module
        .rank_info(&RING_EXCHANGE, &config)
        .expect("rank_info");
    let run = Run {
        module: &module,
        rt: &rt,
        ranks,
        first: info.first_rank,
        world: info.rank_count,
    };
    let (m, rt) = (&module, &rt);
    let checks: Vec<Named> = if mode == "abort" {
        vec![("abort", Box::new(|| run.aborts(process)))]
    } else if mode == "stop-peer" {
        vec![(
            "a peer stopped mid-run",
            Box::new(|| run.stopped_peer(process)),
        )]
    } else if mode == "panic" {
        vec![("a panicking rank", Box::new(|| run.panicking_rank(process)))]
    } else if mode == "wait-on-failed" {
        vec![(
            "wait on a failed process",
            Box::new(|| run.wait_on_failed(process)),
        )]
    } else if mode == "nvshmem" {
        vec![(
            "window accesses through NVSHMEM",
            Box::new(|| run.nvshmem_route(process)),
        )]
    } else {
        vec![
            ("ring, small", Box::new(|| run.ring(300, 40))),
            ("ring, pipelined", Box::new(|| run.ring(600_000, 3))),
            ("notify", Box::new(|| run.notify())),
            ("notify_each", Box::new(|| run.notify_each())),
            ("put targets", Box::new(|| run.put_targets(300, 9))),
            ("get", Box::new(|| run.get())),
            ("timers and logs", Box::new(|| run.host_services())),
            ("allreduce and bcast", Box::new(|| run.collectives())),
            ("split-phase allreduce", Box::new(|| run.split_phase())),
            (
                "communicators",
                Box::new(|| check_splits(rt, m, run.layout())),
            ),
            (
                "communicators by GPU and node",
                Box::new(|| {
                    check_split_types(rt, m, run.layout(), &node_members(rt, |p| 2 + p % 2))
                }),
            ),
            (
                "allreduce_into across processes",
                Box::new(|| check_across(rt, m, run.layout())),
            ),
            (
                "chunk collectives across processes",
                Box::new(|| check_chunks(rt, m, run.layout(), (&[2_100], &device_rank))),
            ),
            (
                "traced ring across processes",
                Box::new(|| {
                    let job = (process, rt.job().map_or(1, |j| j.processes()));
                    check_traced_world(rt, m, (run.ranks, run.world), job)
                }),
            ),
            (
                "typed transfers across processes",
                // 132²: each transfer one piece of the staging, one access
                // the target's host places.
                Box::new(|| dcuda_tests::typed::check_typed(rt, m, run.layout(), (64, 132))),
            ),
            (
                "3D faces across processes",
                // Split in x: each x-face is a column a plane, the planes
                // evenly spaced, so a piece placed through the host is one
                // 3D copy.
                Box::new(|| {
                    // At least two points of x a rank, whatever the world.
                    let (world, layout) = (run.world, run.layout());
                    let shape = ([7, 6, 2 * world + 1], [1, 1, world], 2);
                    dcuda_tests::halo3::check_halo_3d(rt, m, layout, shape)
                }),
            ),
            (
                "indexed layouts across processes",
                // 9,000 single elements: a put of two pieces, 9,000 accesses.
                Box::new(|| {
                    let shape = (64, 10_000, 9_000);
                    dcuda_tests::typed::check_indexed(rt, m, run.layout(), shape)
                }),
            ),
            (
                "indexed layouts across processes, pieces in lent memory",
                // One and a half staging halves of single elements: two
                // pieces, the first unnotified, which the hosts send from
                // and receive into lent pinned memory.
                Box::new(|| {
                    let picks = (STAGE_HALF / 4 * 3 / 2) as u32;
                    let shape = (64, picks + picks / 5, picks);
                    dcuda_tests::typed::check_indexed(rt, m, run.layout(), shape)
                }),
            ),
            (
                "send and recv across processes",
                Box::new(|| check_messages(rt, m, run.layout(), (300, 20))),
            ),
            (
                "messages through the peer logs",
                Box::new(|| run.peer_messages()),
            ),
        ]
    };
    for (name, check) in checks {
        if let Err(e) = check() {
            eprintln!("world_checks: process {process}: {name}: FAILED: {e}");
            std::process::exit(1);
        }
    }
    println!(
        "world_checks: process {process} of {} ok ({} of {} world ranks, first {})",
        info.process_count, ranks, info.rank_count, info.first_rank
    );
}
