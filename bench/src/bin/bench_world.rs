//! Benchmarks between two processes (one GPU each, or two emulated
//! devices): notified-put and notify latency, put bandwidth, and the raw
//! baselines of the same run: MPI 4-byte ping-pong and MPI bandwidth
//! between the same processes, and the host round trip.
//!
//! ```text
//! mpirun -np 2 bench_world [--quick] [--out DIR]
//! ```
//!
//! The route between the GPUs is chosen as in any run: direct (peer-mapped
//! over NVLink) where possible; `DCUDA_PEER_ACCESS=0` forces the network
//! manager. Process 0 prints the table and writes `DIR/world-<route>.csv`.

use dcuda_bench::options;
use dcuda_bench::report::{header, write_csv, Machine, Row};
use dcuda_bench::stats::{summary, Summary};
use dcuda_bench::suite::{aligned, trial_bandwidths, Ping, Suite, ALIGN};

use dcuda::{RunConfig, Runtime};
use dcuda_bench_kernels::*;
use mpi_sys as ffi;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

struct World {
    /// The device, module and settings; its latency measurements run
    /// between world ranks 0 and 1, one per process.
    suite: Suite,
    quick: bool,
    me: u32,
}

impl World {
    /// Timed batches per launch and round trips per batch.
    fn batches(&self) -> (u32, u32) {
        if self.quick {
            (8, 50)
        } else {
            (40, 100)
        }
    }

    /// Put bandwidth from `senders` ranks of process 0 to their partners
    /// on process 1, `total` bytes per repetition, GB/s per trial.
    fn bandwidth(&self, total: usize, senders: u32, ranks: u32) -> Result<Summary> {
        let per = (total / senders as usize) as u64;
        let stride = aligned(per);
        let reps = ((256usize << 20) / total).clamp(2, if self.quick { 4 } else { 64 }) as u32;
        let trials = 5;
        let len = (stride * senders as u64) as usize;
        let src = self.suite.rt.alloc::<u8>(len)?;
        let dst = self.suite.rt.alloc::<u8>(len)?;
        let out = self
            .suite
            .rt
            .alloc::<u64>(2 * (trials * senders) as usize)?;
        let args = BandwidthArgs {
            src: src.slice(),
            dst: dst.slice(),
            bytes: per,
            stride,
            senders,
            reps,
            trials,
            out: out.slice(),
            pairing: HALVES,
        };
        // 256 threads a rank: any kernel fits (ptxas gives at most 255
        // registers a thread); 512 stopped fitting when the kernel reached
        // 140 registers, and the bench failed on two H200s.
        let config = RunConfig::new(256).ranks(ranks);
        // SAFETY: `stride` bytes per sender in both buffers, two stamps per
        // sender and trial.
        unsafe { self.suite.module.run(&PUT_BANDWIDTH, &config, &args)? };
        let stamps = out.download()?;
        let moved = (per * senders as u64 * reps as u64) as f64;
        Ok(summary(trial_bandwidths(&stamps, senders as usize, moved)))
    }
}

/// Raw MPI between processes 0 and 1 on `MPI_COMM_WORLD` (host memory):
/// half round trip of a `bytes` ping-pong in µs, per batch of `iters`
/// (timed with `MPI_Wtime`: a host baseline has no device clock).
fn mpi_pingpong(me: u32, bytes: usize, batches: u32, iters: u32) -> Summary {
    let mut buf = vec![0u8; bytes.max(1)];
    let peer = 1 - me as i32;
    let (p, n) = (buf.as_mut_ptr() as *mut _, bytes as i32);
    let mut samples = Vec::new();
    // SAFETY: blocking sends and receives of our own buffer.
    unsafe {
        let (send, recv) = (
            || ffi::MPI_Send(p, n, ffi::RSMPI_UINT8_T, peer, 7, ffi::RSMPI_COMM_WORLD),
            || {
                ffi::MPI_Recv(
                    p,
                    n,
                    ffi::RSMPI_UINT8_T,
                    peer,
                    7,
                    ffi::RSMPI_COMM_WORLD,
                    ffi::RSMPI_STATUS_IGNORE,
                )
            },
        );
        ffi::MPI_Barrier(ffi::RSMPI_COMM_WORLD);
        for b in 0..batches + 1 {
            let t0 = ffi::RSMPI_Wtime();
            for _ in 0..iters {
                if me == 0 {
                    send();
                    recv();
                } else {
                    recv();
                    send();
                }
            }
            if b > 0 {
                samples.push((ffi::RSMPI_Wtime() - t0) * 1e6 / iters as f64 / 2.0);
            }
        }
    }
    summary(samples)
}

fn main() -> Result<()> {
    dcuda::log::init(); // dcuda's messages to standard error (DCUDA_LOG filters)
    let options::Options { quick, out_dir, .. } =
        options::Options::parse("bench_world")?.no_sections("bench_world")?;
    let rt = Runtime::new()?;
    let job = rt
        .job()
        .ok_or("bench_world needs two processes: run it under mpirun -np 2")?
        .clone();
    if job.processes() != 2 {
        return Err("bench_world needs exactly two processes (mpirun -np 2)".into());
    }
    let module = rt.load(&dcuda::include_ptx!("dcuda_bench_kernels"))?;
    let w = World {
        suite: Suite {
            rt,
            module,
            quick,
            threads: 128,
        },
        quick,
        me: job.process(),
    };
    let forced = std::env::var("DCUDA_PEER_ACCESS").is_ok_and(|v| v.trim() == "0");
    let route = match (w.suite.rt.backend(), forced) {
        (dcuda::Backend::Gpu, false) => "auto",
        (dcuda::Backend::Gpu, true) => "network",
        _ => "emulator",
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut push = |row: Row| -> Row {
        if w.me == 0 {
            println!("{route:<9} {}", row.line());
        }
        rows.push(row.clone());
        row
    };
    if w.me == 0 {
        println!("{:<9} {}", "route", header());
    }
    let (batches, iters) = w.batches();
    let mpi4 = mpi_pingpong(w.me, 4, batches, iters);
    let mpi4 = push(Row::new("latency", "raw MPI ping-pong 4 B, host memory", "us", mpi4).x(4.0));
    let host = push(Row::new(
        "host",
        "device->host->device round trip (runtime)",
        "us",
        w.suite.host_roundtrip()?.0,
    ));
    // The network path's budget: MPI latency plus a host round trip at
    // each end.
    let budget = summary(vec![mpi4.value.median + 2.0 * host.value.median]);
    let budget = push(Row::new(
        "latency",
        "budget: MPI 4 B + 2 host round trips",
        "us",
        budget,
    ));
    for (ping, what) in [(Ping::Put(4), "notified put 4 B"), (Ping::Notify, "notify")] {
        let v = w.suite.pingpong(&w.suite.module, 1, ping, 128)?;
        push(Row::new("latency", what, "us", v).x(4.0).against(&budget));
    }
    let ranks = match w.suite.rt.backend() {
        dcuda::Backend::Gpu => w.suite.rt.device_info().multiprocessors,
        _ => 4,
    };
    let sizes: &[usize] = if quick {
        &[1 << 16, 1 << 22]
    } else {
        &[1 << 12, 1 << 16, 1 << 20, 1 << 22, 1 << 24, 1 << 26]
    };
    for &total in sizes {
        let senders = ((total / (256 << 10)).max(1) as u32).min(ranks);
        let gbs = w.bandwidth(total, senders, ranks)?;
        // Raw MPI bandwidth between host buffers of the same processes.
        let mpi = mpi_pingpong(w.me, total, 5, 2);
        let mpi = summary(vec![total as f64 / (mpi.median * 1e3)]);
        let x = total as f64;
        let mpi = push(
            Row::new(
                "bandwidth",
                format!("raw MPI, host memory, {total} B"),
                "GB/s",
                mpi,
            )
            .x(x),
        );
        let what = format!("put, {senders} senders, {total} B in all");
        push(
            Row::new("bandwidth", what, "GB/s", gbs)
                .x(x)
                .bytes(total as u64 / senders as u64, ALIGN)
                .against(&mpi),
        );
    }
    if w.me == 0 {
        std::fs::create_dir_all(&out_dir)?;
        let path = out_dir.join(format!("world-{route}.csv"));
        write_csv(&path, &rows, &Machine::new(&w.suite.rt.device_info().name))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
