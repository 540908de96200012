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
//! Under `mpirun -np 2` (one rank on each of two GPUs) only the message
//! timeline runs, between the GPUs: the two sides' clocks differ, but
//! each span that crosses sides is the mean of both directions, in which
//! the offset cancels.
//!
//! Prints tables and writes `DIR/probes-barrier.csv` and
//! `DIR/probes-message.csv`.

use dcuda::{Module, RunConfig, Runtime};
use dcuda_bench::baseline::batch_times;
use dcuda_bench::collectives::{collective_latency, latency_of, THREADS};
use dcuda_bench::options;
use dcuda_bench::stats::{stats, Stats};
use dcuda_bench_kernels::{
    TimelineArgs, BARRIER_LATENCY, BARRIER_RAW, COLLECTIVE_LATENCY, MESSAGE_TIMELINE, POINTS,
};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn barrier(rt: &Runtime, module: &Module, o: &options::Options, csv: &mut String) -> Result<()> {
    // The benchmark's kernel fits fewer ranks than the others.
    let max = module.max_ranks(&COLLECTIVE_LATENCY, THREADS)?;
    let most = module
        .max_ranks(&BARRIER_LATENCY, THREADS)?
        .min(module.max_ranks(&BARRIER_RAW, THREADS)?);
    let (batches, iters) = if o.quick { (10, 20) } else { (100, 200) };
    println!(
        "{:<22} {:>6} {:>10} {:>10} {:>9}",
        "barrier", "ranks", "median us", "p99 us", "vs grid"
    );
    let mut counts: Vec<u32> = [8, 128].into_iter().filter(|&n| n < max).collect();
    counts.push(max);
    if most > max {
        counts.push(most);
    }
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
        let mut rows: Vec<(&str, Stats)> = Vec::new();
        if ranks <= max {
            let ns = collective_latency(rt, module, (0, false), ranks, (batches, iters))?;
            rows.push(("runtime (benchmark)", stats(ns)));
        }
        for (name, k) in [("runtime (alone)", &BARRIER_LATENCY), ("raw", &BARRIER_RAW)] {
            rows.push((
                name,
                stats(latency_of(
                    rt,
                    module,
                    k,
                    (0, false),
                    ranks,
                    (batches, iters),
                )?),
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

/// The spans of the timeline, each side's mean per batch, in µs: the
/// sender's transfer; from its end until the receiver sees it, and until
/// it returns; from an arrival until the next transfer; half a round trip.
const SPANS: [&str; 6] = [
    "transfer",
    "end to seen",
    "seen to return",
    "end to return",
    "arrival to transfer",
    "half round trip",
];

fn timeline(
    rt: &Runtime,
    module: &Module,
    mode: u32,
    (batches, iters): (u32, u32),
) -> Result<Vec<Vec<f64>>> {
    // One rank per process under `mpirun -np 2`: world rank 0 and the
    // last are on two GPUs.
    let gather = rt.job().is_some_and(|j| j.processes() > 1);
    let ranks = if gather { 1 } else { 2 };
    let src = rt.upload(&vec![7u64; ranks])?;
    let dst = rt.alloc::<u64>(ranks)?;
    let sums = rt.alloc::<u64>(batches as usize * 2 * POINTS)?;
    let args = TimelineArgs {
        mode,
        batches,
        iters,
        gather: gather as u32,
        src: src.slice(),
        dst: dst.slice(),
        sums: sums.slice(),
    };
    let config = RunConfig::new(THREADS).ranks(ranks as u32);
    // SAFETY: one element per rank in src and dst, the sums of each batch.
    unsafe { module.run(&MESSAGE_TIMELINE, &config, &args)? };
    let sums = sums.download()?;
    let mut spans = vec![Vec::new(); SPANS.len()];
    let n = iters as f64 * 1e3;
    for b in sums.chunks(2 * POINTS) {
        // a: world rank 0 (sends first), z: the last; 0 before a transfer,
        // 1 after it, 2 when an arrival is seen, 3 after the arrival.
        let (a, z) = (&b[..POINTS], &b[POINTS..]);
        let d = |x: u64, y: u64| x.wrapping_sub(y) as i64 as f64 / n;
        let both = |i: usize, j: usize| (d(z[i], a[j]) + d(a[i], z[j])) / 2.0;
        spans[0].push((d(a[1], a[0]) + d(z[1], z[0])) / 2.0);
        spans[1].push(both(2, 1));
        spans[2].push((d(a[3], a[2]) + d(z[3], z[2])) / 2.0);
        spans[3].push(both(3, 1));
        // The last rank's transfer follows its arrival.
        spans[4].push(d(z[0], z[3]));
        spans[5].push(d(a[3], a[0]) / 2.0);
    }
    Ok(spans)
}

fn message(
    rt: &Runtime,
    module: &Module,
    (o, lead): (&options::Options, bool),
    csv: &mut String,
) -> Result<()> {
    let shape = if o.quick { (5, 50) } else { (20, 200) };
    if lead {
        print!("{:<18}", "8 B, us");
        for s in SPANS {
            print!(" {s:>14}");
        }
        println!();
    }
    let modes = [
        (0, "put"),
        (1, "send"),
        (2, "send, iprobe"),
        (3, "send + notify"),
    ];
    for (mode, name) in modes {
        let spans = timeline(rt, module, mode, shape)?;
        if !lead {
            continue;
        }
        print!("{name:<18}");
        for (span, v) in SPANS.iter().zip(spans) {
            let m = median(v);
            print!(" {m:>14.3}");
            *csv += &format!("{name},{span},{m:.4}\n");
        }
        println!();
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
    // Under `mpirun -np 2` only the message timeline runs, between the
    // GPUs, and process 0 reports it.
    let (two, lead) = match rt.job() {
        Some(j) if j.processes() > 1 => (true, j.process() == 0),
        _ => (false, true),
    };
    if lead {
        println!(
            "dcuda bench_probes on {} ({:?}), {}, {THREADS} threads per rank",
            rt.device_info().name,
            rt.backend(),
            if two { "two GPUs" } else { "one GPU" }
        );
    }
    let mut barrier_csv = String::from("variant,ranks,median_us,p99_us,vs_grid_sync\n");
    if !two {
        barrier(&rt, &module, &o, &mut barrier_csv)?;
    }
    let mut message_csv = String::from("transfer,span,median_us\n");
    message(&rt, &module, (&o, lead), &mut message_csv)?;
    if !lead {
        return Ok(());
    }
    std::fs::create_dir_all(&o.out_dir)?;
    if !two {
        std::fs::write(o.out_dir.join("probes-barrier.csv"), barrier_csv)?;
    }
    std::fs::write(o.out_dir.join("probes-message.csv"), message_csv)?;
    println!("wrote {}/probes-*.csv", o.out_dir.display());
    Ok(())
}
