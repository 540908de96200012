//! Latency of collectives over every rank of one GPU: `barrier` and a
//! one-value `allreduce` on the device communicator, against a raw CUDA
//! kernel doing the same with cooperative groups' `grid.sync()`
//! (`bench/baselines/grid_collectives.cu`, built on the GPU machine and
//! given with `--baseline PATH`), measured in the same run, at the same
//! rank counts and threads, timed with the device clock inside the
//! kernels. Each batch gives one time per collective; the table shows the
//! median and p99 over the batches. The barrier runs alone in its kernel
//! (`barrier_latency`), as `grid.sync()` does in the baseline's, up to
//! every rank that kernel fits at once; the allreduce in
//! `collective_latency`. In a kernel that holds both, the barrier measured
//! 1.52× `grid.sync()` at 528 ranks on an H100 where alone it is 1.13×
//! (`bench/results/2026-11-27-hot-paths/`).
//!
//! bench_collectives [--quick] [--out DIR] [--baseline PATH]
//!
//! Prints a table and writes `DIR/collectives.csv` and
//! `DIR/collectives.svg` (default DIR: `bench-out`).

use dcuda::Runtime;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;
use dcuda_bench::baseline::batch_times;
use dcuda_bench::collectives::{collective_latency, kernel_of, MODES, THREADS};
use dcuda_bench::options;
use dcuda_bench::stats::stats;
use dcuda_bench::table::{cell, column, write_plot};

fn main() -> Result<()> {
    dcuda::log::init();
    let options::Options {
        quick,
        out_dir,
        baseline,
        ..
    } = options::Options::parse("bench_collectives")?.no_sections("bench_collectives")?;
    let rt = Runtime::new()?;
    let module = rt.load(&dcuda::include_ptx!("dcuda_bench_kernels"))?;
    let (batches, iters) = if quick { (20, 20) } else { (100, 200) };
    // Every rank count up to all the ranks that fit at once, per kernel.
    let counts = |max: u32| {
        let mut counts: Vec<u32> = [2, 8, 32, 128, 512]
            .into_iter()
            .filter(|&n| n < max)
            .collect();
        counts.push(max);
        counts
    };
    println!(
        "dcuda bench_collectives on {} ({:?}), {THREADS} threads per rank; {batches} batches of {iters}",
        rt.device_info().name,
        rt.backend()
    );
    println!(
        "{:<10} {:>6} {:>12} {:>12} {:>14} {:>14} {:>7}",
        "collective", "ranks", "median us", "p99 us", "baseline med", "baseline p99", "ratio"
    );
    let mut csv = String::from(
        "collective,ranks,median_us,p99_us,baseline_median_us,baseline_p99_us,ratio\n",
    );
    let mut curves: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (mode, name) in MODES.iter().enumerate() {
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        let max = module.max_ranks(kernel_of(mode as u32, false), THREADS)?;
        for ranks in counts(max) {
            let d = stats(collective_latency(
                &rt,
                &module,
                (mode as u32, false),
                ranks,
                (batches, iters),
            )?);
            let b = match &baseline {
                Some(p) => match batch_times(
                    p,
                    &[
                        mode as u64,
                        ranks as u64,
                        THREADS as u64,
                        batches as u64,
                        iters as u64,
                    ],
                ) {
                    Ok(ns) => Some(stats(ns)),
                    Err(e) => {
                        eprintln!("bench_collectives: baseline {name} at {ranks} ranks: {e}");
                        None
                    }
                },
                None => None,
            };
            let ratio = b.map(|b| d.median / b.median);
            println!(
                "{name:<10} {ranks:>6} {:>12.3} {:>12.3} {} {} {}",
                d.median,
                d.p99,
                column(b.map(|b| b.median), 14),
                column(b.map(|b| b.p99), 14),
                column(ratio, 7)
            );
            csv += &format!(
                "{name},{ranks},{:.4},{:.4},{},{},{}\n",
                d.median,
                d.p99,
                cell(b.map(|b| b.median)),
                cell(b.map(|b| b.p99)),
                cell(ratio)
            );
            ours.push((ranks as f64, d.median));
            if let Some(b) = b {
                theirs.push((ranks as f64, b.median));
            }
        }
        curves.push((format!("dcuda {name}"), ours));
        if !theirs.is_empty() {
            curves.push((format!("grid.sync {name}"), theirs));
        }
    }
    std::fs::create_dir_all(&out_dir)?;
    std::fs::write(out_dir.join("collectives.csv"), csv)?;
    let labels = (
        "Collectives over the ranks of one GPU (median)",
        "ranks",
        "us per collective",
    );
    write_plot(&out_dir.join("collectives.svg"), labels, true, &curves)?;
    println!(
        "wrote {}/collectives.csv, collectives.svg",
        out_dir.display()
    );
    Ok(())
}
