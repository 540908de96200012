//! Bandwidth of a large allreduce across two GPUs: every GPU's buffer
//! summed (float, in place), as `ncclAllReduce` does it
//! (`bench/baselines/nccl_allreduce.cu`, same run). dcuda splits each
//! GPU's buffer over its ranks and reduces each part over its rail (the
//! ranks of one device rank on every GPU, made with `comm_split`); see the
//! `rail_allreduce` kernel. Both are timed with the device clock, in
//! batches; the table shows median and p99 time per allreduce and the bus
//! bandwidth (`bytes / time * 2 (P - 1) / P`, NCCL's definition).
//!
//! ```text
//! mpirun -np 2 bench_world_allreduce [--quick] [--out DIR]
//! mpirun -np 2 nccl_allreduce BATCHES ITERS BYTES... > DIR/allreduce-nccl.csv
//! bench_world_allreduce --join DIR
//! ```
//!
//! The first writes `DIR/allreduce-dcuda.csv` (`bytes,batch,ns`, ns per
//! allreduce) and prints the byte counts to give the baseline. For
//! experiments, `ALLREDUCE_RANKS` sets the ranks per GPU (at most 132) and
//! `ALLREDUCE_BYTES` one size instead of the list.

use dcuda::{RunConfig, Runtime};
use dcuda_bench::stats::stats;
use dcuda_bench::{options, plot};
use dcuda_bench_kernels::{RailArgs, RAIL_ALLREDUCE};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Threads per rank.
const THREADS: u32 = 256;
/// Ranks per GPU at most (one per SM of an H100 / H200).
const RANKS: u32 = 132;

fn measure(quick: bool, out_dir: &Path) -> Result<()> {
    let rt = Runtime::new()?;
    let job = rt.job().ok_or("run under mpirun")?;
    let processes = job.processes() as f64;
    let module = rt.load(&dcuda::include_ptx!("dcuda_bench_kernels"))?;
    let env = |name: &str| -> Result<Option<usize>> {
        match std::env::var(name) {
            Ok(v) => Ok(Some(v.parse().map_err(|e| format!("{name}={v}: {e}"))?)),
            Err(_) => Ok(None),
        }
    };
    let most = module.max_ranks(&RAIL_ALLREDUCE, THREADS)?.min(RANKS);
    let ranks = env("ALLREDUCE_RANKS")?.map_or(most, |r| (r as u32).clamp(1, most));
    let (batches, iters) = if quick { (5, 2) } else { (20, 5) };
    let one = env("ALLREDUCE_BYTES")?.map(|b| vec![b]);
    let sizes: &[usize] = match &one {
        Some(b) => b,
        None if quick => &[1 << 20],
        None => &[1 << 20, 4 << 20, 16 << 20, 64 << 20],
    };
    let mut csv = String::from("bytes,batch,ns\n");
    let mut all_bytes = Vec::new();
    for &target in sizes {
        let len = (target / 4 / ranks as usize) as u32;
        let bytes = len as usize * 4 * ranks as usize;
        let buf = rt.upload(&vec![1.0f32; len as usize * ranks as usize])?;
        let out = rt.alloc::<u64>(batches as usize)?;
        let args = RailArgs {
            len,
            batches,
            iters,
            buf: buf.slice(),
            out: out.slice(),
        };
        let config = RunConfig::new(THREADS).ranks(ranks);
        // SAFETY: len elements per rank, one output per batch.
        unsafe { module.run(&RAIL_ALLREDUCE, &config, &args)? };
        let want = processes.powi(1 + (batches * iters) as i32) as f32;
        if let Some(bad) = buf.download()?.into_iter().find(|&v| v != want) {
            return Err(
                format!("allreduce of {bytes} bytes: an element is {bad}, want {want}").into(),
            );
        }
        let ns: Vec<f64> = out
            .download()?
            .into_iter()
            .map(|t| t as f64 / iters as f64)
            .collect();
        if job.process() == 0 {
            let s = stats(ns.clone());
            let busbw = bytes as f64 / (s.median * 1e3) * 2.0 * (processes - 1.0) / processes;
            println!(
                "dcuda rails {bytes:>9} bytes, {ranks} ranks per GPU: median {:.1} us, p99 {:.1} us, bus {busbw:.1} GB/s",
                s.median, s.p99
            );
            for (b, v) in ns.iter().enumerate() {
                let _ = writeln!(csv, "{bytes},{b},{v:.1}");
            }
        }
        all_bytes.push(bytes.to_string());
    }
    if job.process() == 0 {
        std::fs::create_dir_all(out_dir)?;
        std::fs::write(out_dir.join("allreduce-dcuda.csv"), csv)?;
        println!("baseline sizes: {}", all_bytes.join(" "));
    }
    Ok(())
}

/// `bytes,batch,ns` lines by bytes (other lines are skipped).
fn read(path: &Path) -> Result<BTreeMap<u64, Vec<f64>>> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut m = BTreeMap::<u64, Vec<f64>>::new();
    for line in text.lines() {
        if let [b, _, ns] = line.split(',').collect::<Vec<_>>()[..] {
            if let (Ok(b), Ok(ns)) = (b.parse(), ns.parse()) {
                m.entry(b).or_default().push(ns);
            }
        }
    }
    Ok(m)
}

fn join(dir: &Path) -> Result<()> {
    let ours = read(&dir.join("allreduce-dcuda.csv"))?;
    let theirs = read(&dir.join("allreduce-nccl.csv"))?;
    // Two processes: the bus factor 2 (P - 1) / P is 1.
    let bus = |bytes: u64, us: f64| bytes as f64 / (us * 1e3);
    println!(
        "{:>10} {:>10} {:>9} {:>9} {:>10} {:>9} {:>9} {:>8}",
        "bytes", "median us", "p99 us", "bus GB/s", "NCCL med", "NCCL p99", "NCCL bus", "of NCCL"
    );
    let mut csv = String::from(
        "bytes,median_us,p99_us,bus_gbs,nccl_median_us,nccl_p99_us,nccl_bus_gbs,fraction_of_nccl\n",
    );
    let (mut ours_curve, mut theirs_curve) = (Vec::new(), Vec::new());
    for (&bytes, ns) in &ours {
        let d = stats(ns.clone());
        let Some(n) = theirs.get(&bytes).map(|v| stats(v.clone())) else {
            continue;
        };
        let (bd, bn) = (bus(bytes, d.median), bus(bytes, n.median));
        println!(
            "{bytes:>10} {:>10.1} {:>9.1} {bd:>9.1} {:>10.1} {:>9.1} {bn:>9.1} {:>8.3}",
            d.median,
            d.p99,
            n.median,
            n.p99,
            bd / bn
        );
        let _ = writeln!(
            csv,
            "{bytes},{:.2},{:.2},{bd:.2},{:.2},{:.2},{bn:.2},{:.4}",
            d.median,
            d.p99,
            n.median,
            n.p99,
            bd / bn
        );
        let mib = bytes as f64 / (1 << 20) as f64;
        ours_curve.push((mib, bd));
        theirs_curve.push((mib, bn));
    }
    std::fs::write(dir.join("allreduce.csv"), csv)?;
    let series = [("dcuda rails", ours_curve), ("NCCL", theirs_curve)];
    let svg = plot::lines(
        "Allreduce of each GPU's buffer across two GPUs (median)",
        "MiB per GPU",
        "bus bandwidth, GB/s",
        true,
        &series,
    );
    std::fs::write(dir.join("allreduce.svg"), svg)?;
    println!("wrote {}/allreduce.csv, .svg", dir.display());
    Ok(())
}

fn main() -> Result<()> {
    dcuda::log::init();
    match options::Mode::parse("bench_world_allreduce")? {
        options::Mode::Join(dir) => join(&dir),
        options::Mode::Measure(o) => measure(o.quick, &o.out_dir),
    }
}
