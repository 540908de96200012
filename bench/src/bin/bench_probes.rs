//! Diagnostics on one GPU, for issue 12's two open targets: where a
//! device barrier's time and an 8-byte message's time go.
//!
//! * barrier: `Runtime::barrier` inside `collective_latency` (the
//!   benchmark's kernel) and alone in a kernel, against the same one-word
//!   protocol with raw atomics and the leader's broadcast (`barrier_raw`),
//!   and `grid.sync()` (`--baseline PATH`,
//!   `bench/baselines/grid_collectives.cu`); median and p99 of the batches.
//! * message: the 8-byte ping-pong of `bench_messages`, each side summing
//!   its clock around its transfers and arrivals (`message_timeline`): the
//!   mean time a transfer takes its sender, from its end until the receiver
//!   returns, and from an arrival until the next transfer starts.
//!
//! bench_probes [--quick] [--out DIR] [--baseline PATH]
//!
//! Prints tables and writes `DIR/probes-barrier.csv` and
//! `DIR/probes-message.csv`.

use dcuda::{Module, RankKernel, RunConfig, Runtime};
use dcuda_bench::baseline::batch_times;
use dcuda_bench::collectives::{collective_latency, THREADS};
use dcuda_bench::options;
use dcuda_bench::stats::{stats, Stats};
use dcuda_bench_kernels::{
    CollectiveLatencyArgs, TimelineArgs, BARRIER_ALONE, BARRIER_RAW, MESSAGE_TIMELINE,
};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Per-batch nanoseconds per barrier of `kernel` over `ranks` ranks.
fn barrier_kernel(
    rt: &Runtime,
    module: &Module,
    kernel: &RankKernel<CollectiveLatencyArgs>,
    ranks: u32,
    (batches, iters): (u32, u32),
) -> Result<Vec<f64>> {
    let out = rt.alloc::<u64>(batches as usize)?;
    // The raw barrier's word: zeroed.
    let result = rt.upload(&[0f64])?;
    let args = CollectiveLatencyArgs {
        mode: 0,
        world: 0,
        batches,
        iters,
        out: out.slice(),
        result: result.slice(),
    };
    let config = RunConfig::new(THREADS).ranks(ranks);
    // SAFETY: one output per batch, one zeroed word.
    unsafe { module.run(kernel, &config, &args)? };
    Ok(out
        .download()?
        .into_iter()
        .map(|t| t as f64 / iters as f64)
        .collect())
}

fn barrier(rt: &Runtime, module: &Module, o: &options::Options, csv: &mut String) -> Result<()> {
    let max = module.max_ranks(&BARRIER_ALONE, THREADS)?;
    let (batches, iters) = if o.quick { (10, 20) } else { (100, 200) };
    println!(
        "{:<22} {:>6} {:>10} {:>10} {:>9}",
        "barrier", "ranks", "median us", "p99 us", "vs grid"
    );
    let mut counts: Vec<u32> = [8, 128].into_iter().filter(|&n| n < max).collect();
    counts.push(max);
    for ranks in counts {
        let grid = match &o.baseline {
            Some(p) => {
                let shape = [
                    0,
                    ranks as u64,
                    THREADS as u64,
                    batches as u64,
                    iters as u64,
                ];
                Some(stats(batch_times(p, &shape)?))
            }
            None => None,
        };
        let mut rows: Vec<(&str, Stats)> = vec![(
            "runtime (benchmark)",
            stats(collective_latency(
                rt,
                module,
                (0, false),
                ranks,
                (batches, iters),
            )?),
        )];
        for (name, k) in [("runtime (alone)", &BARRIER_ALONE), ("raw", &BARRIER_RAW)] {
            rows.push((
                name,
                stats(barrier_kernel(rt, module, k, ranks, (batches, iters))?),
            ));
        }
        if let Some(g) = grid {
            rows.push(("grid.sync()", g));
        }
        for (name, s) in rows {
            let ratio = grid.map(|g| s.median / g.median);
            let shown = ratio.map_or("-".into(), |r| format!("{r:.2}"));
            println!(
                "{name:<22} {ranks:>6} {:>10.3} {:>10.3} {shown:>9}",
                s.median, s.p99
            );
            let cell = ratio.map_or(String::new(), |r| format!("{r:.4}"));
            *csv += &format!("{name},{ranks},{:.4},{:.4},{cell}\n", s.median, s.p99);
        }
    }
    Ok(())
}

/// The mean of each timeline span over each batch, in µs: the sender's
/// transfer, from its end to the receiver's return, from an arrival to
/// the next transfer, and half a round trip.
fn timeline(
    rt: &Runtime,
    module: &Module,
    mode: u32,
    (batches, iters): (u32, u32),
) -> Result<[Vec<f64>; 4]> {
    let ranks = 2;
    let src = rt.upload(&vec![7u64; ranks])?;
    let dst = rt.alloc::<u64>(ranks)?;
    let sums = rt.alloc::<u64>(batches as usize * 6)?;
    let args = TimelineArgs {
        mode,
        batches,
        iters,
        src: src.slice(),
        dst: dst.slice(),
        sums: sums.slice(),
    };
    let config = RunConfig::new(THREADS).ranks(ranks as u32);
    // SAFETY: one element per rank in src and dst, six sums per batch.
    unsafe { module.run(&MESSAGE_TIMELINE, &config, &args)? };
    let sums = sums.download()?;
    let mut spans: [Vec<f64>; 4] = Default::default();
    let n = iters as f64 * 1e3;
    for b in sums.chunks(6) {
        // a: world rank 0 (sends first), z: the last; 0 before a transfer,
        // 1 after it, 2 after an arrival.
        let (a, z) = (&b[0..3], &b[3..6]);
        let d = |x: u64, y: u64| x.wrapping_sub(y) as i64 as f64 / n;
        spans[0].push((d(a[1], a[0]) + d(z[1], z[0])) / 2.0);
        spans[1].push((d(z[2], a[1]) + d(a[2], z[1])) / 2.0);
        // Rank 0's next transfer follows its arrival one round trip later.
        spans[2].push(d(z[0], z[2]));
        spans[3].push(d(a[2], a[0]) / 2.0);
    }
    Ok(spans)
}

fn message(rt: &Runtime, module: &Module, o: &options::Options, csv: &mut String) -> Result<()> {
    let shape = if o.quick { (5, 50) } else { (20, 200) };
    let names = [
        "transfer",
        "end to return",
        "arrival to transfer",
        "half round trip",
    ];
    println!(
        "{:<10} {:>10} {:>14} {:>20} {:>16}",
        "8 B", names[0], names[1], names[2], names[3]
    );
    for (mode, name) in [(0, "put"), (1, "send")] {
        let spans = timeline(rt, module, mode, shape)?;
        let medians: Vec<f64> = spans.into_iter().map(|v| median(v)).collect();
        println!(
            "{name:<10} {:>10.3} {:>14.3} {:>20.3} {:>16.3}",
            medians[0], medians[1], medians[2], medians[3]
        );
        for (span, m) in names.iter().zip(&medians) {
            *csv += &format!("{name},{span},{m:.4}\n");
        }
    }
    Ok(())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<()> {
    dcuda::log::init();
    let o = options::Options::parse("bench_probes")?.no_sections("bench_probes")?;
    let rt = Runtime::new()?;
    let module = rt.load(&dcuda::include_ptx!("dcuda_bench_kernels"))?;
    println!(
        "dcuda bench_probes on {} ({:?}), {THREADS} threads per rank",
        rt.device_info().name,
        rt.backend()
    );
    let mut barrier_csv = String::from("variant,ranks,median_us,p99_us,vs_grid_sync\n");
    barrier(&rt, &module, &o, &mut barrier_csv)?;
    let mut message_csv = String::from("transfer,span,median_us\n");
    message(&rt, &module, &o, &mut message_csv)?;
    std::fs::create_dir_all(&o.out_dir)?;
    std::fs::write(o.out_dir.join("probes-barrier.csv"), barrier_csv)?;
    std::fs::write(o.out_dir.join("probes-message.csv"), message_csv)?;
    println!(
        "wrote {}/probes-barrier.csv, probes-message.csv",
        o.out_dir.display()
    );
    Ok(())
}
