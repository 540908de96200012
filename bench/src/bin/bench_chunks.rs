//! Latency and bandwidth of the collectives that move chunks
//! (`allgather_into`, `alltoall_into`) over every rank of one GPU, across
//! chunk sizes, against a raw CUDA kernel doing the same copies between
//! two `grid.sync()`s (`bench/baselines/grid_chunks.cu`, built on the GPU
//! machine and given with `--baseline PATH`), measured in the same run, at
//! the same rank counts and threads, timed with the device clock inside the
//! kernels. Each batch gives one time per collective; the table shows the
//! median and p99 over the batches, and the bandwidth: the bytes a rank
//! receives from other ranks per median time.
//!
//! bench_chunks [--quick] [--out DIR] [--baseline PATH]
//!
//! Prints a table and writes `DIR/chunks.csv` and `DIR/chunks.svg`
//! (default DIR: `bench-out`).

use dcuda::Runtime;
use dcuda_bench::baseline::batch_times;
use dcuda_bench::chunks::{chunk_latency, CHUNK_MODES};
use dcuda_bench::collectives::THREADS;
use dcuda_bench::options;
use dcuda_bench::stats::{stats, Stats};
use dcuda_bench::table::{cell, column, write_plot};
use dcuda_bench_kernels::CHUNK_LATENCY;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The largest buffer of all ranks together, in bytes.
const MAX_BYTES: u64 = 512 << 20;

fn main() -> Result<()> {
    dcuda::log::init();
    let options::Options {
        quick,
        out_dir,
        baseline,
        ..
    } = options::Options::parse("bench_chunks")?.no_sections("bench_chunks")?;
    let rt = Runtime::new()?;
    let module = rt.load(&dcuda::include_ptx!("dcuda_bench_kernels"))?;
    let max = module.max_ranks(&CHUNK_LATENCY, THREADS)?;
    let (batches, iters) = if quick { (5, 5) } else { (50, 20) };
    let counts: Vec<u32> = if quick {
        vec![4.min(max)]
    } else {
        vec![16.min(max), max]
    };
    let lens: &[u32] = if quick {
        &[1, 256]
    } else {
        &[1, 16, 256, 2048, 8192]
    };
    // The plot shows the most ranks measured.
    let top = *counts.last().expect("a rank count");
    println!(
        "dcuda bench_chunks on {} ({:?}), {THREADS} threads per rank, up to {max} ranks; {batches} batches of {iters}",
        rt.device_info().name,
        rt.backend()
    );
    println!(
        "{:<15} {:>6} {:>9} {:>11} {:>11} {:>11} {:>11} {:>7} {:>9}",
        "collective",
        "ranks",
        "chunk B",
        "median us",
        "p99 us",
        "base med",
        "base p99",
        "ratio",
        "GB/s"
    );
    let mut csv = String::from("collective,ranks,chunk_bytes,median_us,p99_us,baseline_median_us,baseline_p99_us,ratio,gb_per_s,baseline_gb_per_s\n");
    let mut curves: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (mode, name) in CHUNK_MODES.iter().enumerate() {
        for &ranks in &counts {
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            for &len in lens {
                let bytes = len as u64 * 8;
                if ranks as u64 * ranks as u64 * bytes > MAX_BYTES {
                    continue;
                }
                let case = (mode as u32, len);
                let d = stats(chunk_latency(&rt, &module, case, ranks, (batches, iters))?);
                let b = baseline.as_ref().and_then(|p| {
                    let args = [
                        mode as u64,
                        ranks as u64,
                        THREADS as u64,
                        len as u64,
                        batches as u64,
                        iters as u64,
                    ];
                    batch_times(p, &args)
                        .map_err(|e| {
                            eprintln!(
                                "bench_chunks: baseline {name}, {ranks} ranks, {bytes} B: {e}"
                            )
                        })
                        .ok()
                        .map(stats)
                });
                // What a rank receives from the others, per median time.
                let received = (ranks as u64 - 1) * bytes;
                let gbs = |s: Stats| received as f64 / (s.median * 1e3);
                println!(
                    "{name:<15} {ranks:>6} {bytes:>9} {:>11.3} {:>11.3} {} {} {} {:>9.2}",
                    d.median,
                    d.p99,
                    column(b.map(|b| b.median), 11),
                    column(b.map(|b| b.p99), 11),
                    column(b.map(|b| d.median / b.median), 7),
                    gbs(d)
                );
                csv += &format!(
                    "{name},{ranks},{bytes},{:.4},{:.4},{},{},{},{:.3},{}\n",
                    d.median,
                    d.p99,
                    cell(b.map(|b| b.median)),
                    cell(b.map(|b| b.p99)),
                    cell(b.map(|b| d.median / b.median)),
                    gbs(d),
                    cell(b.map(gbs))
                );
                ours.push((bytes as f64, d.median));
                if let Some(b) = b {
                    theirs.push((bytes as f64, b.median));
                }
            }
            if ranks == top {
                curves.push((format!("dcuda {name}"), ours));
                if !theirs.is_empty() {
                    curves.push((format!("grid.sync {name}"), theirs));
                }
            }
        }
    }
    std::fs::create_dir_all(&out_dir)?;
    std::fs::write(out_dir.join("chunks.csv"), csv)?;
    let title = format!("Allgather and all-to-all over {top} ranks of one GPU (median)");
    let labels = (title.as_str(), "chunk bytes", "us per collective");
    write_plot(&out_dir.join("chunks.svg"), labels, true, &curves)?;
    println!("wrote {}/chunks.csv, chunks.svg", out_dir.display());
    Ok(())
}
