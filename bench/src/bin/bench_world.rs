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

use dcuda::{Module, RunConfig, Runtime};
use dcuda_bench_kernels::*;
use mpi_sys as ffi;
use std::fmt::Write as _;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

struct World {
    rt: Runtime,
    module: Module,
    quick: bool,
    me: u32,
}

impl World {
    fn iters(&self, full: u32) -> u32 {
        if self.quick {
            (full / 20).max(50)
        } else {
            full
        }
    }

    /// Half round trip of a notified-put (mode 0) or notify (mode 1)
    /// ping-pong between world ranks 0 and 1, one rank per process, in µs.
    fn pingpong(&self, mode: u32) -> Result<f64> {
        let iters = self.iters(5_000);
        let buf = self.rt.alloc::<u32>(32)?;
        let out = self.rt.alloc::<u64>(1)?;
        let args = PingArgs {
            buf: buf.slice(),
            out: out.slice(),
            iters,
            mode,
        };
        // SAFETY: 16 words for each of the two world ranks.
        unsafe {
            self.module
                .run(&PINGPONG, &RunConfig::new(128).ranks(1), &args)?
        };
        Ok(out.download()?[0] as f64 / 1e3 / iters as f64 / 2.0)
    }

    /// A device-host-device round trip on this process, in µs.
    fn host_roundtrip(&self) -> Result<f64> {
        let iters = self.iters(5_000);
        let out = self.rt.alloc::<u64>(1)?;
        let args = HostArgs {
            out: out.slice(),
            iters,
        };
        // SAFETY: one output.
        unsafe {
            self.module
                .run(&HOST_ROUNDTRIP, &RunConfig::new(128).ranks(1), &args)?
        };
        Ok(out.download()?[0] as f64 / 1e3 / iters as f64)
    }

    /// Put bandwidth from `senders` ranks of process 0 to their partners
    /// on process 1, `total` bytes per repetition, in GB/s.
    fn bandwidth(&self, total: usize, senders: u32, ranks: u32) -> Result<f64> {
        let per = total / senders as usize;
        let reps = ((256usize << 20) / total).clamp(2, if self.quick { 4 } else { 64 }) as u32;
        let src = self.rt.alloc::<u8>(total)?;
        let dst = self.rt.alloc::<u8>(total)?;
        let out = self.rt.alloc::<u64>(1)?;
        let args = BandwidthArgs {
            src: src.slice(),
            dst: dst.slice(),
            bytes: per as u64,
            senders,
            reps,
            out: out.slice(),
            pairing: HALVES,
        };
        // SAFETY: source and destination hold `per` bytes for every sender.
        unsafe {
            self.module
                .run(&PUT_BANDWIDTH, &RunConfig::new(512).ranks(ranks), &args)?
        };
        Ok(total as f64 * reps as f64 / out.download()?[0] as f64)
    }
}

/// Raw MPI between processes 0 and 1 on `MPI_COMM_WORLD` (host memory):
/// half round trip of a `bytes` ping-pong in µs.
fn mpi_pingpong(me: u32, bytes: usize, iters: u32) -> f64 {
    let mut buf = vec![0u8; bytes.max(1)];
    let peer = 1 - me as i32;
    let (p, n) = (buf.as_mut_ptr() as *mut _, bytes as i32);
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
        let mut t0 = 0.0;
        for i in 0..iters + 10 {
            if i == 10 {
                t0 = ffi::RSMPI_Wtime();
            }
            if me == 0 {
                send();
                recv();
            } else {
                recv();
                send();
            }
        }
        (ffi::RSMPI_Wtime() - t0) * 1e6 / iters as f64 / 2.0
    }
}

fn main() -> Result<()> {
    dcuda::log::init(); // dcuda's messages to standard error (DCUDA_LOG filters)
    let options::Options { quick, out_dir, .. } = options::Options::parse("bench_world")?;
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
        rt,
        module,
        quick,
        me: job.process(),
    };
    let forced = std::env::var("DCUDA_PEER_ACCESS").is_ok_and(|v| v.trim() == "0");
    let route = match (w.rt.backend(), forced) {
        (dcuda::Backend::Gpu, false) => "auto",
        (dcuda::Backend::Gpu, true) => "network",
        _ => "emulator",
    };
    let mut csv = String::from("measure,x,value,unit,baseline,ratio\n");
    let mut row = |name: &str, x: f64, value: f64, unit: &str, baseline: Option<f64>| {
        let ratio = baseline.map(|b| value / b);
        if w.me == 0 {
            println!(
                "{route:<9} {name:<40} {x:>10} {value:>10.3} {unit:<5} {:>10} {:>7}",
                baseline.map(|b| format!("{b:.3}")).unwrap_or_default(),
                ratio.map(|r| format!("{r:.2}x")).unwrap_or_default()
            );
        }
        let _ = writeln!(
            csv,
            "{name},{x},{value},{unit},{},{}",
            baseline.map(|b| b.to_string()).unwrap_or_default(),
            ratio.map(|r| r.to_string()).unwrap_or_default()
        );
    };
    let mpi4 = mpi_pingpong(w.me, 4, w.iters(20_000));
    row("raw MPI ping-pong 4 B (half RTT)", 4.0, mpi4, "us", None);
    let host = w.host_roundtrip()?;
    row("host round trip", 0.0, host, "us", None);
    let put = w.pingpong(0)?;
    let notify = w.pingpong(1)?;
    // The network path's budget: MPI latency plus a host round trip at
    // each end.
    let budget = mpi4 + 2.0 * host;
    row("notified put 4 B (half RTT)", 4.0, put, "us", Some(budget));
    row("notify (half RTT)", 0.0, notify, "us", Some(budget));
    let ranks = match w.rt.backend() {
        dcuda::Backend::Gpu => w.rt.device_info().multiprocessors,
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
        let mpi = total as f64 / (mpi_pingpong(w.me, total, 10) * 1e3);
        row(
            &format!("put bandwidth, {senders} senders (vs MPI)"),
            total as f64,
            gbs,
            "GB/s",
            Some(mpi),
        );
    }
    if w.me == 0 {
        std::fs::create_dir_all(&out_dir)?;
        let path = out_dir.join(format!("world-{route}.csv"));
        std::fs::write(&path, csv)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
