//! Two-sided messages (`send`/`recv`) against notified puts
//! (`put_notify`/`wait_notifications`) of the same sizes between world
//! rank 0 and the last world rank: two ranks of one GPU, or, under
//! `mpirun -np 2`, one rank on each of two GPUs. Both run in the same
//! kernel (`message_bench`), timed with the device clock per batch.
//! Latency is half a ping-pong round trip (median and p99 over the
//! batches); bandwidth is a stream of messages ended by an acknowledgement
//! (median over the batches).
//!
//! bench_messages [--quick] [--out DIR]
//!
//! Prints a table and writes `DIR/messages.csv`, `DIR/messages-latency.svg`
//! and `DIR/messages-bandwidth.svg` (default DIR: `bench-out`).

use dcuda::{Module, RunConfig, Runtime};
use dcuda_bench::options;
use dcuda_bench::stats::{stats, Stats};
use dcuda_bench::table::write_plot;
use dcuda_bench_kernels::{MessageBenchArgs, MESSAGE_BENCH};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Threads per rank.
const THREADS: u32 = 128;
/// Targets of issue 12: send/recv latency at most 1.5× a notified put's,
/// bandwidth at least 90% of it.
const LATENCY_TARGET: f64 = 1.5;
const BANDWIDTH_TARGET: f64 = 0.9;

/// One measurement's settings.
struct Shape {
    ranks: u32,
    batches: u32,
}

/// Per-batch nanoseconds of `iters` round trips (`stream` 0) or messages
/// (`stream` 1) of `bytes` in `mode` (0 put, 1 send).
fn batches(
    rt: &Runtime,
    module: &Module,
    s: &Shape,
    (mode, stream): (u32, u32),
    (bytes, iters): (usize, u32),
) -> Result<Vec<f64>> {
    let len = bytes / 8;
    let src = rt.upload(&vec![7u64; len * s.ranks as usize])?;
    let dst = rt.alloc::<u64>(len * s.ranks as usize)?;
    let out = rt.alloc::<u64>(s.batches as usize)?;
    let args = MessageBenchArgs {
        mode,
        stream,
        len: len as u32,
        batches: s.batches,
        iters,
        src: src.slice(),
        dst: dst.slice(),
        out: out.slice(),
    };
    let config = RunConfig::new(THREADS).ranks(s.ranks);
    // SAFETY: len elements per rank in src and dst, one output per batch.
    unsafe { module.run(&MESSAGE_BENCH, &config, &args)? };
    Ok(out.download()?.into_iter().map(|t| t as f64).collect())
}

/// The median of `v`.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<()> {
    dcuda::log::init();
    let o = options::Options::parse("bench_messages")?.no_sections("bench_messages")?;
    let rt = Runtime::new()?;
    let module = rt.load(&dcuda::include_ptx!("dcuda_bench_kernels"))?;
    let (ranks, route, lead) = match rt.job() {
        Some(j) if j.processes() > 1 => (1, "two GPUs", j.process() == 0),
        _ => (2, "one GPU", true),
    };
    let s = Shape {
        ranks,
        batches: if o.quick { 5 } else { 20 },
    };
    let sizes: &[usize] = if o.quick {
        &[8, 4096, 1 << 20]
    } else {
        &[8, 64, 512, 4096, 32 << 10, 256 << 10, 1 << 20]
    };
    if lead {
        println!(
            "dcuda bench_messages on {} ({:?}), {route}, {THREADS} threads per rank, {} batches",
            rt.device_info().name,
            rt.backend(),
            s.batches
        );
        println!(
            "{:>8} {:>11} {:>11} {:>11} {:>11} {:>6} | {:>10} {:>10} {:>6}",
            "bytes",
            "send med",
            "send p99",
            "put med",
            "put p99",
            "ratio",
            "send GB/s",
            "put GB/s",
            "ratio"
        );
    }
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record([
        "route",
        "bytes",
        "measure",
        "send_recv",
        "send_recv_p99",
        "put_notify",
        "put_notify_p99",
        "unit",
        "ratio",
        "target",
        "verdict",
    ])?;
    let mut curves: [Vec<(f64, f64)>; 4] = Default::default();
    for &bytes in sizes {
        let lat_iters = (8 << 20) / bytes.max(1);
        let lat_iters = lat_iters.clamp(10, 200) as u32;
        let half = |ns: Vec<f64>| stats(ns.iter().map(|t| t / lat_iters as f64 / 2.0).collect());
        let [put_l, send_l] = [0, 1].map(|m| batches(&rt, &module, &s, (m, 0), (bytes, lat_iters)));
        let (put_l, send_l): (Stats, Stats) = (half(put_l?), half(send_l?));
        let stream_iters = ((32 << 20) / bytes).clamp(16, 1000) as u32;
        let gbs = |ns: Vec<f64>| {
            let moved = bytes as f64 * stream_iters as f64;
            median(ns.iter().map(|t| moved / t).collect())
        };
        let [put_b, send_b] =
            [0, 1].map(|m| batches(&rt, &module, &s, (m, 1), (bytes, stream_iters)));
        let (put_b, send_b) = (gbs(put_b?), gbs(send_b?));
        if !lead {
            continue;
        }
        let lr = send_l.median / put_l.median;
        let br = send_b / put_b;
        println!(
            "{bytes:>8} {:>11.3} {:>11.3} {:>11.3} {:>11.3} {lr:>6.2} | {send_b:>10.4} {put_b:>10.4} {br:>6.2}",
            send_l.median, send_l.p99, put_l.median, put_l.p99
        );
        let verdict = |ok: bool| if ok { "met" } else { "missed" };
        csv.write_record([
            route.to_string(),
            bytes.to_string(),
            "latency".into(),
            format!("{:.4}", send_l.median),
            format!("{:.4}", send_l.p99),
            format!("{:.4}", put_l.median),
            format!("{:.4}", put_l.p99),
            "us".into(),
            format!("{lr:.3}"),
            format!("<= {LATENCY_TARGET}"),
            verdict(lr <= LATENCY_TARGET).into(),
        ])?;
        csv.write_record([
            route.to_string(),
            bytes.to_string(),
            "bandwidth".into(),
            format!("{send_b:.4}"),
            String::new(),
            format!("{put_b:.4}"),
            String::new(),
            "GB/s".into(),
            format!("{br:.3}"),
            format!(">= {BANDWIDTH_TARGET}"),
            verdict(br >= BANDWIDTH_TARGET).into(),
        ])?;
        let x = bytes as f64;
        curves[0].push((x, send_l.median));
        curves[1].push((x, put_l.median));
        curves[2].push((x, send_b));
        curves[3].push((x, put_b));
    }
    if !lead {
        return Ok(());
    }
    std::fs::create_dir_all(&o.out_dir)?;
    std::fs::write(o.out_dir.join("messages.csv"), csv.into_inner()?)?;
    let [sl, pl, sb, pb] = curves;
    let plot = |file: &str, title: &str, unit: &str, a: Vec<(f64, f64)>, b: Vec<(f64, f64)>| {
        let curves = [("send/recv".to_string(), a), ("put_notify".to_string(), b)];
        write_plot(&o.out_dir.join(file), (title, "bytes", unit), true, &curves)
    };
    let title = format!("Messages vs notified puts, {route} (median)");
    plot(
        "messages-latency.svg",
        &title,
        "us (half round trip)",
        sl,
        pl,
    )?;
    plot("messages-bandwidth.svg", &title, "GB/s", sb, pb)?;
    println!(
        "wrote {}/messages.csv, messages-latency.svg, messages-bandwidth.svg",
        o.out_dir.display()
    );
    Ok(())
}
