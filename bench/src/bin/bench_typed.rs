//! Typed transfers (`put_notify_typed`) against hand-written packing
//! (the rank's threads pack into staging, `put_notify` of the staging, the
//! target's threads unpack) and against a contiguous `put_notify` of as
//! many elements; besides, three typed ways that split the cost: the same
//! bytes with contiguous datatypes on both sides (`typed contiguous`, the
//! call without the strided copy), the shape into contiguous staging
//! (`typed gather`) and contiguous staging into the shape (`typed
//! scatter`). Between world rank 0 and the last world rank: two
//! ranks of one GPU, or, under `mpirun -np 2`, one rank on each of two
//! GPUs (the direct route over NVLink), for the shapes of issue 16: a column of a 4096 × 4096 `f32` matrix and
//! the 64³ block of a 512³ `f32` array, and the 128³ block (8 MiB: where
//! the host route's pieces pipeline). All in one kernel
//! (`typed_bench`), timed with the device clock per batch, two ways:
//! `latency`, half a ping-pong round trip; `stream`, the time a transfer
//! of a stream of 16 takes, the last notified and answered (as OSU's
//! `put_bw` measures bandwidth). Median and p99 over the batches; GB/s is
//! the shape's bytes over the median.
//!
//! bench_typed [--quick] [--out DIR]
//!
//! Prints a table and writes `DIR/typed.csv` (each row naming the device
//! and the commit, `DCUDA_COMMIT`) and `DIR/typed.svg`
//! (default DIR: `bench-out`). `--quick`: smaller arrays (a 512 × 512
//! matrix, a 128³ array), for the emulator.

use dcuda::{Module, RunConfig, Runtime};
use dcuda_bench::options;
use dcuda_bench::report::Machine;
use dcuda_bench::stats::{stats, Stats};
use dcuda_bench::table::write_plot;
use dcuda_bench_kernels::{TypedBenchArgs, TYPED_BENCH_WAYS};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Threads per rank.
const THREADS: u32 = 256;
/// The ways, as `TYPED_BENCH_WAYS` numbers them (a kernel each).
const WAYS: [&str; 6] = [
    "typed",
    "pack+put+unpack",
    "contiguous",
    "typed contiguous",
    "typed gather",
    "typed scatter",
];

/// Transfers a round trip of the stream measure.
const WINDOW: u32 = 16;
/// The measures: name and transfers a round trip.
const MEASURES: [(&str, u32); 2] = [("latency", 1), ("stream", WINDOW)];

/// Elements of `shape` (see `TypedBenchArgs::shape`) in an array of side `n`.
fn elements(shape: u32, n: u32) -> u64 {
    match shape {
        0 => n as u64,
        1 => 64u64.pow(3),
        _ => 128u64.pow(3),
    }
}

/// Elements of the array of side `n` that holds `shape`.
fn array_len(shape: u32, n: u32) -> usize {
    if shape == 0 {
        (n * n) as usize
    } else {
        (n as usize).pow(3)
    }
}

/// The time of one transfer, in µs, of `mode` on `shape` of side `n`: half
/// a round trip (`window` 1), or a round trip over its `window` transfers.
fn per_transfer(
    rt: &Runtime,
    module: &Module,
    (shape, n): (u32, u32),
    mode: u32,
    (batches, iters, window): (u32, u32, u32),
) -> Result<Stats> {
    let (array_len, elems) = (array_len(shape, n), elements(shape, n) as usize);
    let ranks = ranks_here(rt);
    let array = rt.upload(&vec![1.5f32; array_len * ranks])?;
    let staging = rt.alloc::<f32>(elems * ranks)?;
    let out = rt.alloc::<u64>(batches as usize)?;
    let args = TypedBenchArgs {
        shape,
        n,
        batches,
        iters,
        window,
        array: array.slice(),
        staging: staging.slice(),
        out: out.slice(),
    };
    let config = RunConfig::new(THREADS).ranks(ranks as u32);
    // SAFETY: an array and a staging per rank, sized for the shape; one
    // output per batch.
    unsafe { module.run(TYPED_BENCH_WAYS[mode as usize], &config, &args)? };
    let ns = out.download()?;
    let per = iters as f64 * if window == 1 { 2.0 } else { window as f64 };
    Ok(stats(ns.iter().map(|&t| t as f64 / per).collect()))
}

/// Ranks on this process: two alone, one a process in a job (world rank
/// 0 and the last one then sit on different GPUs).
fn ranks_here(rt: &Runtime) -> usize {
    if rt.job().is_some() {
        1
    } else {
        2
    }
}

fn main() -> Result<()> {
    dcuda::log::init();
    let o = options::Options::parse("bench_typed")?.no_sections("bench_typed")?;
    let rt = Runtime::new()?;
    let module = rt.load(&dcuda::include_ptx!("dcuda_bench_kernels"))?;
    let (batches, iters): (u32, u32) = if o.quick { (3, 2) } else { (20, 20) };
    let shapes: &[(u32, u32, &str)] = if o.quick {
        &[
            (0, 512, "column of 512x512 f32"),
            (1, 128, "64^3 block of 128^3 f32"),
        ]
    } else {
        &[
            (0, 4096, "column of 4096x4096 f32"),
            (1, 512, "64^3 block of 512^3 f32"),
            (2, 512, "128^3 block of 512^3 f32"),
        ]
    };
    let (process, gpus) = rt.job().map_or((0, 1), |j| (j.process(), j.processes()));
    let speak = process == 0;
    let place = if gpus > 1 { "two GPUs" } else { "one GPU" };
    if speak {
        println!(
            "dcuda bench_typed on {} ({:?}), {place}, {THREADS} threads per rank, {batches} batches",
            rt.device_info().name,
            rt.backend()
        );
        println!(
            "{:<26} {:>8} {:>8} {:>17} {:>10} {:>10} {:>10} {:>8}",
            "shape", "bytes", "measure", "way", "median us", "p99 us", "GB/s", "/ pack"
        );
    }
    let machine = Machine::new(&rt.device_info().name);
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record([
        "device",
        "commit",
        "shape",
        "bytes",
        "measure",
        "way",
        "median_us",
        "p99_us",
        "gbs",
        "pack_over_way",
    ])?;
    let mut curves: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (measure, window) in MEASURES {
        for &(shape, n, name) in shapes {
            let bytes = 4 * elements(shape, n);
            let results: Vec<Stats> = (0..WAYS.len() as u32)
                .map(|mode| {
                    // A stream's round trip has WINDOW transfers: fewer of them.
                    let trips = if window == 1 {
                        iters
                    } else {
                        iters.div_ceil(5)
                    };
                    per_transfer(&rt, &module, (shape, n), mode, (batches, trips, window))
                })
                .collect::<Result<_>>()?;
            // World rank 0, on process 0, times the transfers.
            if !speak {
                continue;
            }
            let pack = results[1].median;
            for (mode, s) in results.iter().enumerate() {
                let gbs = bytes as f64 / (s.median * 1e3);
                let speedup = pack / s.median;
                println!(
                    "{name:<26} {bytes:>8} {measure:>8} {:>17} {:>10.3} {:>10.3} {gbs:>10.3} {speedup:>8.2}",
                    WAYS[mode], s.median, s.p99
                );
                csv.write_record([
                    machine.device.clone(),
                    machine.commit.clone(),
                    name.to_string(),
                    bytes.to_string(),
                    measure.to_string(),
                    WAYS[mode].to_string(),
                    format!("{:.4}", s.median),
                    format!("{:.4}", s.p99),
                    format!("{gbs:.4}"),
                    format!("{speedup:.3}"),
                ])?;
                let curve = format!("{} ({measure})", WAYS[mode]);
                match curves.iter_mut().find(|(c, _)| *c == curve) {
                    Some((_, points)) => points.push((bytes as f64, gbs)),
                    None => curves.push((curve, vec![(bytes as f64, gbs)])),
                }
            }
        }
    }
    if !speak {
        return Ok(());
    }
    std::fs::create_dir_all(&o.out_dir)?;
    std::fs::write(o.out_dir.join("typed.csv"), csv.into_inner()?)?;
    let title = format!("Typed put vs packing, {place} (median)");
    write_plot(
        &o.out_dir.join("typed.svg"),
        (&title, "bytes", "GB/s"),
        true,
        &curves,
    )?;
    println!("wrote {}/typed.csv, typed.svg", o.out_dir.display());
    Ok(())
}
