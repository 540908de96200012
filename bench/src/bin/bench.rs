//! The dcuda benchmarks. Each number is reported beside a raw baseline
//! measured in the same run, and as a ratio to it.
//!
//! ```text
//! bench [--quick] [--out DIR]
//! ```
//!
//! Prints a table and writes `DIR/results.csv`, `DIR/bandwidth.svg` and
//! `DIR/latency.svg` (default DIR: `bench-out`).

use dcuda_bench::{options, plot};

use dcuda::{DeviceBuffer, LaunchConfig, LoadOptions, MappedBuffer, Module, RunConfig, Runtime};
use dcuda_bench_kernels::*;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// One measured row.
struct Row {
    group: &'static str,
    name: String,
    x: f64,
    value: f64,
    unit: &'static str,
    baseline: Option<f64>,
    target: Option<(&'static str, f64)>,
}

impl Row {
    fn ratio(&self) -> Option<f64> {
        self.baseline.map(|b| self.value / b)
    }
    fn verdict(&self) -> &'static str {
        match (self.target, self.ratio()) {
            (Some(("<=", t)), Some(r)) => {
                if r <= t {
                    "met"
                } else {
                    "missed"
                }
            }
            (Some((">=", t)), Some(r)) => {
                if r >= t {
                    "met"
                } else {
                    "missed"
                }
            }
            (Some(("<=", t)), None) => {
                if self.value <= t {
                    "met"
                } else {
                    "missed"
                }
            }
            _ => "",
        }
    }
}

struct Bench {
    rt: Runtime,
    module: Module,
    quick: bool,
    threads: u32,
    rows: Vec<Row>,
}

fn ptx() -> dcuda::Ptx {
    dcuda::include_ptx!("dcuda_bench_kernels")
}

impl Bench {
    fn iters(&self, full: u32) -> u32 {
        if self.quick {
            (full / 50).max(20)
        } else {
            full
        }
    }

    fn push(&mut self, row: Row) {
        let ratio = row.ratio().map(|r| format!("{r:.2}x")).unwrap_or_default();
        println!(
            "{:<10} {:<44} {:>12.3} {:<5} {:>12} {:>7} {}",
            row.group,
            row.name,
            row.value,
            row.unit,
            row.baseline.map(|b| format!("{b:.3}")).unwrap_or_default(),
            ratio,
            row.verdict()
        );
        self.rows.push(row);
    }

    /// Half round trip of the raw two-block flag ping-pong, in µs.
    fn raw_flag_pingpong(&self) -> Result<f64> {
        let iters = self.iters(20_000);
        let mut flags = self.rt.alloc::<u32>(2)?;
        let mut out = self.rt.alloc::<u64>(1)?;
        // SAFETY: two flags, one output.
        unsafe {
            self.module.launch(
                &RAW_FLAG_PINGPONG,
                LaunchConfig::linear(2, 32).cooperative(),
                (flags.as_mut_ptr(), iters, out.as_mut_ptr()),
            )?
        }
        .wait()?;
        Ok(out.download()?[0] as f64 / 1e3 / iters as f64 / 2.0)
    }

    /// Half round trip of the breakdown ping-pong with `steps` of the
    /// runtime's pieces, blocks of `threads`, in µs.
    fn breakdown(&self, steps: u32, threads: u32) -> Result<f64> {
        let iters = self.iters(20_000);
        let mut counters = self.rt.alloc::<u32>(2)?;
        let mut out = self.rt.alloc::<u64>(1)?;
        let config = LaunchConfig::linear(2, threads).cooperative();
        // SAFETY: two counters, one output.
        unsafe {
            self.module.launch(
                &PINGPONG_BREAKDOWN,
                config,
                (counters.as_mut_ptr(), iters, steps, out.as_mut_ptr()),
            )?
        }
        .wait()?;
        Ok(out.download()?[0] as f64 / 1e3 / iters as f64 / 2.0)
    }

    /// Half round trip of dcuda's ping-pong among `ranks` ranks, in µs.
    fn pingpong(&self, ranks: u32, mode: u32) -> Result<f64> {
        self.pingpong_with(ranks, mode, self.threads)
    }

    fn pingpong_with(&self, ranks: u32, mode: u32, threads: u32) -> Result<f64> {
        self.pingpong_on(&self.module, ranks, mode, threads)
    }

    fn pingpong_on(&self, module: &Module, ranks: u32, mode: u32, threads: u32) -> Result<f64> {
        let iters = self.iters(20_000);
        let buf = self.rt.alloc::<u32>(16 * ranks as usize)?;
        let out = self.rt.alloc::<u64>(1)?;
        let args = PingArgs {
            buf: buf.slice(),
            out: out.slice(),
            iters,
            mode,
        };
        // SAFETY: 16 words per rank, one output.
        unsafe { module.run(&PINGPONG, &RunConfig::new(threads).ranks(ranks), &args)? };
        Ok(out.download()?[0] as f64 / 1e3 / iters as f64 / 2.0)
    }

    /// Round trip through the runtime's host queue, in µs, and the memory
    /// per rank of that run.
    fn host_roundtrip(&self) -> Result<(f64, (usize, usize))> {
        let iters = self.iters(20_000);
        let out = self.rt.alloc::<u64>(1)?;
        let args = HostArgs {
            out: out.slice(),
            iters,
        };
        // SAFETY: one output.
        let report = unsafe {
            self.module.run(
                &HOST_ROUNDTRIP,
                &RunConfig::new(self.threads).ranks(2),
                &args,
            )?
        };
        Ok((
            out.download()?[0] as f64 / 1e3 / iters as f64,
            report.memory_per_rank,
        ))
    }

    /// Raw device-host flag round trip, in µs, with each flag in mapped host
    /// memory (H) or device memory (D): placements of digest 000 Table 5.2.
    fn raw_roundtrip(&self, to_host_in_device: bool, to_device_in_device: bool) -> Result<f64> {
        let iters = self.iters(if to_host_in_device || to_device_in_device {
            2_000
        } else {
            20_000
        });
        enum Flag {
            Host(MappedBuffer<u32>),
            Device(DeviceBuffer<u32>),
        }
        let make = |device: bool| -> Result<Flag> {
            Ok(if device {
                Flag::Device(self.rt.alloc::<u32>(1)?)
            } else {
                Flag::Host(self.rt.alloc_mapped::<u32>(1)?)
            })
        };
        let (mut to_host, mut to_device) = (make(to_host_in_device)?, make(to_device_in_device)?);
        let ptr = |f: &mut Flag| match f {
            Flag::Host(m) => m.device_ptr(),
            Flag::Device(d) => d.as_mut_ptr(),
        };
        let (th, td) = (ptr(&mut to_host), ptr(&mut to_device));
        // SAFETY: one flag each.
        let launch = unsafe {
            self.module.launch(
                &RAW_ROUNDTRIP,
                LaunchConfig::linear(1, 32),
                (th, td as *const u32, iters),
            )?
        };
        let read = |f: &Flag| -> Result<u32> {
            Ok(match f {
                Flag::Host(m) => m.load_acquire(0),
                Flag::Device(d) => d.download()?[0],
            })
        };
        let mut start = Instant::now();
        for i in 1..=iters {
            if i == 2 {
                start = Instant::now();
            }
            let deadline = Instant::now() + Duration::from_secs(10);
            while read(&to_host)? != i {
                if Instant::now() > deadline {
                    return Err(format!("raw round trip: the device stopped at {i}").into());
                }
            }
            match &mut to_device {
                Flag::Host(m) => m.store_release(0, i),
                Flag::Device(d) => d.copy_from(&[i])?,
            }
        }
        let elapsed = start.elapsed();
        launch.wait()?;
        Ok(elapsed.as_secs_f64() * 1e6 / (iters - 1) as f64)
    }

    /// Device-to-device memcpy of `bytes`, best of a few, in GB/s.
    fn memcpy(&self, bytes: usize) -> Result<f64> {
        let src = self.rt.alloc::<u8>(bytes)?;
        let mut dst = self.rt.alloc::<u8>(bytes)?;
        let reps = if bytes < 1 << 20 { 50 } else { 5 };
        let mut best = f64::MAX;
        for _ in 0..reps {
            let t = Instant::now();
            dst.copy_from_buffer(&src)?;
            best = best.min(t.elapsed().as_secs_f64());
        }
        Ok(bytes as f64 / best / 1e9)
    }

    /// Put bandwidth in GB/s: `total` bytes per repetition split over
    /// `senders` ranks.
    fn put_bandwidth(&self, total: usize, senders: u32) -> Result<f64> {
        let per = (total / senders as usize).max(1);
        let reps =
            ((64usize << 20) / total.max(1)).clamp(1, if self.quick { 4 } else { 256 }) as u32;
        let src = self.rt.alloc::<u8>(per * senders as usize)?;
        let dst = self.rt.alloc::<u8>(per * senders as usize)?;
        let out = self.rt.alloc::<u64>(1)?;
        let args = BandwidthArgs {
            src: src.slice(),
            dst: dst.slice(),
            bytes: per as u64,
            senders,
            reps,
            out: out.slice(),
            pairing: NEIGHBOURS,
        };
        // SAFETY: source and destination hold `per` bytes for every sender.
        unsafe {
            self.module.run(
                &PUT_BANDWIDTH,
                &RunConfig::new(self.threads).ranks(2 * senders),
                &args,
            )?
        };
        let ns = out.download()?[0] as f64;
        Ok((per * senders as usize) as f64 * reps as f64 / ns)
    }
}

fn main() -> Result<()> {
    dcuda::log::init(); // dcuda's messages to standard error (DCUDA_LOG filters)
    let options::Options { quick, out_dir, .. } = options::Options::parse("bench")?;
    let rt = Runtime::new()?;
    let module = rt.load(&ptx())?;
    let threads = 128;
    let max_ranks = module.max_ranks(&PINGPONG, threads)?;
    let info = rt.device_info().clone();
    println!(
        "dcuda bench on {} ({:?}), {threads} threads per rank, up to {max_ranks} ranks{}",
        info.name,
        info.backend,
        if quick { ", quick" } else { "" }
    );
    println!(
        "{:<10} {:<44} {:>12} {:<5} {:>12} {:>7}",
        "group", "measure", "value", "unit", "baseline", "ratio"
    );
    let mut b = Bench {
        rt,
        module,
        quick,
        threads,
        rows: Vec::new(),
    };

    // Latency against the raw two-block flag ping-pong.
    let raw = b.raw_flag_pingpong()?;
    b.push(Row {
        group: "latency",
        name: "raw flag ping-pong, half round trip".into(),
        x: 2.0,
        value: raw,
        unit: "us",
        baseline: None,
        target: None,
    });
    let put = b.pingpong(2, 0)?;
    b.push(Row {
        group: "latency",
        name: "notified put 4 B, half round trip".into(),
        x: 2.0,
        value: put,
        unit: "us",
        baseline: Some(raw),
        target: Some(("<=", 1.3)),
    });
    let notify = b.pingpong(2, 1)?;
    b.push(Row {
        group: "latency",
        name: "notify, half round trip".into(),
        x: 2.0,
        value: notify,
        unit: "us",
        baseline: Some(raw),
        target: Some(("<=", 1.3)),
    });
    for (mode, what) in [(0, "notified put 4 B"), (1, "notify")] {
        let v = b.pingpong_with(2, mode, 32)?;
        b.push(Row {
            group: "latency",
            name: format!("{what}, half round trip, 32-thread ranks"),
            x: 2.0,
            value: v,
            unit: "us",
            baseline: Some(raw),
            target: None,
        });
    }

    // How the rank's thread count moves a notification's cost: ranks of up
    // to 1024 threads, in a module capped at 64 registers as the stencil
    // applications run them (a step of theirs cost 36 µs at 1024 threads
    // against 9 µs at 256).
    let capped =
        b.rt.load_with(&ptx(), &LoadOptions::default().max_registers(64))?;
    for t in [128, 256, 512, 1024] {
        if capped.max_ranks(&PINGPONG, t)? < 2 {
            continue;
        }
        let v = b.pingpong_on(&capped, 2, 1, t)?;
        b.push(Row {
            group: "latency",
            name: format!("notify, half round trip, {t}-thread ranks, 64 registers"),
            x: 2.0,
            value: v,
            unit: "us",
            baseline: Some(raw),
            target: None,
        });
    }

    // Where the difference goes: the raw ping-pong plus the runtime's pieces.
    for (steps, what) in [
        (1, "+ counter bumped with red.release"),
        (2, "+ leader's broadcast barrier"),
        (3, "+ ordering barrier before the signal"),
    ] {
        let v = b.breakdown(steps, threads)?;
        b.push(Row {
            group: "breakdown",
            name: format!("raw ping-pong {what}"),
            x: steps as f64,
            value: v,
            unit: "us",
            baseline: Some(raw),
            target: None,
        });
    }

    // Host round trips, and the placements of the raw flags.
    let placements = [
        ("H-H", false, false),
        ("H-D", false, true),
        ("D-H", true, false),
        ("D-D", true, true),
    ];
    let mut raw_host = f64::MAX;
    for (name, to_host_dev, to_device_dev) in placements {
        let v = b.raw_roundtrip(to_host_dev, to_device_dev)?;
        if name == "H-H" {
            raw_host = v;
        }
        b.push(Row {
            group: "host",
            name: format!("raw flag round trip, placement {name} (device->host, host->device)"),
            x: 0.0,
            value: v,
            unit: "us",
            baseline: None,
            target: None,
        });
    }
    let (host_rtt, memory) = b.host_roundtrip()?;
    b.push(Row {
        group: "host",
        name: "device->host->device round trip (runtime)".into(),
        x: 0.0,
        value: host_rtt,
        unit: "us",
        baseline: Some(raw_host),
        target: Some(("<=", 1.2)),
    });

    // Bandwidth from 1 B to 64 MiB.
    // The copy loop uses more registers than the ping-pong: fewer ranks fit.
    let half = (b.module.max_ranks(&PUT_BANDWIDTH, threads)? / 2).max(1);
    let sizes: Vec<usize> = (0..=26)
        .step_by(if quick { 6 } else { 2 })
        .map(|p| 1usize << p)
        .collect();
    for &size in &sizes {
        let memcpy = b.memcpy(size)?;
        b.push(Row {
            group: "bandwidth",
            name: format!("device memcpy {size} B"),
            x: size as f64,
            value: memcpy,
            unit: "GB/s",
            baseline: None,
            target: None,
        });
        let one = b.put_bandwidth(size, 1)?;
        b.push(Row {
            group: "bandwidth",
            name: format!("put from 1 rank, {size} B"),
            x: size as f64,
            value: one,
            unit: "GB/s",
            baseline: Some(memcpy),
            target: None,
        });
        let many = b.put_bandwidth(size.max(half as usize * 16), half)?;
        let target = (size == 1 << 26).then_some((">=", 0.8));
        b.push(Row {
            group: "bandwidth",
            name: format!(
                "put from {half} ranks, {} B in all",
                size.max(half as usize * 16)
            ),
            x: size as f64,
            value: many,
            unit: "GB/s",
            baseline: Some(memcpy),
            target,
        });
    }

    // Latency against the number of ranks on the device.
    let mut counts: Vec<u32> = vec![2, 8, 32, 128, 512, 1000];
    counts.retain(|&c| c <= max_ranks);
    if !counts.contains(&max_ranks) {
        counts.push(max_ranks);
    }
    let two = put;
    for &ranks in &counts {
        let v = if ranks == 2 {
            two
        } else {
            b.pingpong(ranks, 0)?
        };
        let target = (ranks >= 1000).then_some(("<=", 2.0));
        b.push(Row {
            group: "scaling",
            name: format!("notified put, {ranks} ranks on the device"),
            x: ranks as f64,
            value: v,
            unit: "us",
            baseline: Some(two),
            target,
        });
    }

    // Runtime memory per rank.
    let (device, host) = memory;
    b.push(Row {
        group: "memory",
        name: "runtime device memory per rank".into(),
        x: 0.0,
        value: device as f64 / 1024.0,
        unit: "KiB",
        baseline: None,
        target: None,
    });
    b.push(Row {
        group: "memory",
        name: "runtime pinned host memory per rank".into(),
        x: 0.0,
        value: host as f64 / 1024.0,
        unit: "KiB",
        baseline: None,
        target: None,
    });
    b.push(Row {
        group: "memory",
        name: "runtime memory per rank, total".into(),
        x: 0.0,
        value: (device + host) as f64 / 1024.0,
        unit: "KiB",
        baseline: None,
        target: Some(("<=", 64.0)),
    });

    std::fs::create_dir_all(&out_dir)?;
    let mut csv = String::from("group,measure,x,value,unit,baseline,ratio,target,verdict\n");
    for r in &b.rows {
        let target = r
            .target
            .map(|(op, t)| format!("{op}{t}"))
            .unwrap_or_default();
        let _ = writeln!(
            csv,
            "{},\"{}\",{},{},{},{},{},{},{}",
            r.group,
            r.name,
            r.x,
            r.value,
            r.unit,
            r.baseline.map(|v| v.to_string()).unwrap_or_default(),
            r.ratio().map(|v| format!("{v:.4}")).unwrap_or_default(),
            target,
            r.verdict()
        );
    }
    std::fs::write(out_dir.join("results.csv"), csv)?;
    let series = |prefix: &str| -> Vec<(f64, f64)> {
        b.rows
            .iter()
            .filter(|r| r.group == "bandwidth" && r.name.starts_with(prefix))
            .map(|r| (r.x, r.value))
            .collect()
    };
    std::fs::write(
        out_dir.join("bandwidth.svg"),
        plot::lines(
            "Put bandwidth",
            "bytes (log2)",
            "GB/s",
            true,
            &[
                ("device memcpy", series("device memcpy")),
                ("put, 1 rank", series("put from 1 rank")),
                (
                    &format!("put, {half} ranks"),
                    series(&format!("put from {half} ranks")),
                ),
            ],
        ),
    )?;
    let scaling: Vec<(f64, f64)> = b
        .rows
        .iter()
        .filter(|r| r.group == "scaling")
        .map(|r| (r.x, r.value))
        .collect();
    std::fs::write(
        out_dir.join("latency.svg"),
        plot::lines(
            "Notified-put half round trip",
            "ranks on the device (log2)",
            "us",
            true,
            &[("notified put", scaling)],
        ),
    )?;
    println!(
        "wrote {}/results.csv, bandwidth.svg, latency.svg",
        out_dir.display()
    );
    Ok(())
}
