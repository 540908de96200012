//! Latency of collectives over every rank of two GPUs: the world `barrier`
//! and a one-value (8-byte `f64`) `allreduce`, against NVSHMEM doing the
//! same inside one kernel (`bench/baselines/nvshmem_collectives.cu`: block
//! values combined on the GPU through a grid sync, then
//! `nvshmemx_double_sum_reduce_block` / `nvshmemx_barrier_all_block` on the
//! world team, then a grid sync). Both are timed with the device clock
//! inside the kernels, in batches; the table shows median and p99 of the
//! per-collective time over the batches.
//!
//! ```text
//! mpirun -np 2 bench_world_collectives [--quick] [--out DIR]
//! mpirun -np 2 nvshmem_collectives RANKS... > DIR/world-collectives-nvshmem.csv
//! bench_world_collectives --join DIR
//! ```
//!
//! The first writes `DIR/world-collectives-dcuda.csv` (one line per batch:
//! `collective,ranks_per_gpu,batch,ns`); the baseline prints the same
//! format; `--join` prints the table and writes `DIR/world-collectives.csv`
//! and `.svg`.

use dcuda::Runtime;
use dcuda_bench::collectives::{collective_latency, MODES, THREADS};
use dcuda_bench::stats::{stats, Stats};
use dcuda_bench::{options, plot};
use dcuda_bench_kernels::COLLECTIVE_LATENCY;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Per-batch nanoseconds per collective, by (collective, ranks per GPU).
type Samples = BTreeMap<(String, u32), Vec<f64>>;

fn measure(quick: bool, out_dir: &Path) -> Result<()> {
    let rt = Runtime::new()?;
    let job = rt.job().ok_or("run under mpirun -np 2")?;
    let module = rt.load(&dcuda::include_ptx!("dcuda_bench_kernels"))?;
    let max = module.max_ranks(&COLLECTIVE_LATENCY, THREADS)?;
    let shape = if quick { (10, 20) } else { (100, 200) };
    let mut counts: Vec<u32> = [1, 8, 32, 132].into_iter().filter(|&n| n < max).collect();
    counts.push(max);
    let me = job.process();
    let mut csv = String::from("collective,ranks_per_gpu,batch,ns\n");
    for (mode, name) in MODES.iter().enumerate() {
        for &ranks in &counts {
            let ns = collective_latency(&rt, &module, (mode as u32, true), ranks, shape)?;
            let s = stats(ns.clone());
            if me == 0 {
                println!(
                    "dcuda world {name:<9} {ranks:>5} ranks per GPU: median {:.3} us, p99 {:.3} us",
                    s.median, s.p99
                );
            }
            for (b, v) in ns.iter().enumerate() {
                let _ = writeln!(csv, "{name},{ranks},{b},{v:.1}");
            }
        }
    }
    if me == 0 {
        std::fs::create_dir_all(out_dir)?;
        std::fs::write(out_dir.join("world-collectives-dcuda.csv"), csv)?;
        println!("max ranks per GPU: {max}; wrote world-collectives-dcuda.csv");
    }
    Ok(())
}

/// Reads `collective,ranks_per_gpu,batch,ns` lines (a header and any
/// other line that does not parse are skipped).
fn read_samples(path: &Path) -> Result<Samples> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut samples = Samples::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split(',').collect();
        if let [name, ranks, _, ns] = f[..] {
            if let (Ok(r), Ok(v)) = (ranks.parse(), ns.parse()) {
                samples.entry((name.to_string(), r)).or_default().push(v);
            }
        }
    }
    Ok(samples)
}

fn join(dir: &Path) -> Result<()> {
    let ours = read_samples(&dir.join("world-collectives-dcuda.csv"))?;
    let theirs = read_samples(&dir.join("world-collectives-nvshmem.csv"))?;
    println!(
        "{:<10} {:>8} {:>10} {:>10} {:>12} {:>12} {:>7}",
        "collective", "per GPU", "median us", "p99 us", "NVSHMEM med", "NVSHMEM p99", "ratio"
    );
    let mut csv = String::from(
        "collective,ranks_per_gpu,median_us,p99_us,nvshmem_median_us,nvshmem_p99_us,ratio\n",
    );
    let mut curves: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for ((name, ranks), ns) in &ours {
        let d = stats(ns.clone());
        let b: Option<Stats> = theirs
            .get(&(name.clone(), *ranks))
            .map(|v| stats(v.clone()));
        let ratio = b.map(|b| d.median / b.median);
        let cell = |v: Option<f64>| v.map(|v| format!("{v:.3}")).unwrap_or("-".into());
        println!(
            "{name:<10} {ranks:>8} {:>10.3} {:>10.3} {:>12} {:>12} {:>7}",
            d.median,
            d.p99,
            cell(b.map(|b| b.median)),
            cell(b.map(|b| b.p99)),
            cell(ratio)
        );
        let raw = |v: Option<f64>| v.map(|v| format!("{v:.4}")).unwrap_or_default();
        let _ = writeln!(
            csv,
            "{name},{ranks},{:.4},{:.4},{},{},{}",
            d.median,
            d.p99,
            raw(b.map(|b| b.median)),
            raw(b.map(|b| b.p99)),
            raw(ratio)
        );
        let x = *ranks as f64;
        curves
            .entry(format!("dcuda {name}"))
            .or_default()
            .push((x, d.median));
        if let Some(b) = b {
            curves
                .entry(format!("NVSHMEM {name}"))
                .or_default()
                .push((x, b.median));
        }
    }
    std::fs::write(dir.join("world-collectives.csv"), csv)?;
    let series: Vec<(&str, Vec<(f64, f64)>)> = curves
        .iter()
        .map(|(n, s)| (n.as_str(), s.clone()))
        .collect();
    let title = "Collectives over every rank of two GPUs (median)";
    let svg = plot::lines(title, "ranks per GPU", "us per collective", true, &series);
    std::fs::write(dir.join("world-collectives.svg"), svg)?;
    println!("wrote {}/world-collectives.csv, .svg", dir.display());
    Ok(())
}

fn main() -> Result<()> {
    dcuda::log::init();
    match options::Mode::parse("bench_world_collectives")? {
        options::Mode::Join(dir) => join(&dir),
        options::Mode::Measure(o) => measure(o.quick, &o.out_dir),
    }
}
