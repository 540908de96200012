//! Summarises `scripts/gpu-jacobi.sh`'s CSV: per program and grid, the
//! median, fastest and slowest time over the repetitions; the ratios the
//! issue asks for, each between programs of the same run; a Markdown table
//! and an SVG plot (milliseconds per iteration against the grid).
//!
//!   jacobi_report jacobi.csv --out DIR

use std::collections::BTreeMap;
use std::fmt::Write as _;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (csv_path, out) = match args.as_slice() {
        [path, flag, dir] if flag == "--out" => (path.clone(), dir.clone()),
        _ => return Err("usage: jacobi_report FILE.csv --out DIR".into()),
    };
    // (program, nx) -> (threads, units, seconds of each repetition)
    let mut runs: BTreeMap<(String, u32), (String, Vec<f64>)> = BTreeMap::new();
    let mut iters = 0u32;
    for row in csv::Reader::from_path(&csv_path)?.records() {
        let row = row?;
        let field = |name: usize| row.get(name).unwrap_or_default().to_string();
        let nx: u32 = field(5).parse()?;
        iters = field(7).parse()?;
        let entry = runs
            .entry((field(0), nx))
            .or_insert_with(|| (format!("{} x {}", field(3), field(4)), Vec::new()));
        entry.1.push(field(8).parse()?);
    }
    let mut table = String::from(
        "| program | grid | ranks or blocks x threads | runs | median s | min s | max s | ms per iteration |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let mut medians: BTreeMap<(String, u32), f64> = BTreeMap::new();
    for ((program, nx), (shape, secs)) in &mut runs {
        let m = median(secs);
        medians.insert((program.clone(), *nx), m);
        let _ = writeln!(
            table,
            "| {program} | {nx}² | {shape} | {} | {m:.4} | {:.4} | {:.4} | {:.4} |",
            secs.len(),
            secs[0],
            secs[secs.len() - 1],
            1e3 * m / iters.max(1) as f64
        );
    }
    table.push_str("\n| grid | ratio | value |\n| --- | --- | --- |\n");
    let sizes: Vec<u32> = medians
        .keys()
        .map(|k| k.1)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let get = |p: &str, nx: u32| medians.get(&(p.to_string(), nx)).copied();
    for &nx in &sizes {
        let base = [get("jacobi_mpi", nx), get("jacobi_mpi --overlap", nx)]
            .into_iter()
            .flatten()
            .fold(f64::MAX, f64::min);
        let mut ratio = |name: &str, a: Option<f64>, b: Option<f64>| {
            if let (Some(a), Some(b)) = (a, b) {
                let _ = writeln!(table, "| {nx}² | {name} | {:.3} |", a / b);
            }
        };
        ratio(
            "faster host-driven baseline / dcuda (speedup)",
            Some(base).filter(|b| *b < f64::MAX),
            get("jacobi", nx),
        );
        ratio(
            "nvcc kernel / Rust PTX baseline (Rust's speed)",
            get("jacobi_single (nvcc)", nx),
            get("jacobi_mpi", nx),
        );
        ratio(
            "traced / untraced dcuda (tracing's cost)",
            get("jacobi (traced)", nx),
            get("jacobi", nx),
        );
    }
    let mut series: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for ((program, nx), m) in &medians {
        series
            .entry(program.as_str())
            .or_default()
            .push((*nx as f64, 1e3 * m / iters.max(1) as f64));
    }
    let series: Vec<(&str, Vec<(f64, f64)>)> = series.into_iter().collect();
    let svg = dcuda_bench::plot::lines(
        "Jacobi 2D on one GPU: time per iteration (median)",
        "grid side (log2)",
        "ms per iteration",
        true,
        &series,
    );
    std::fs::create_dir_all(&out)?;
    std::fs::write(format!("{out}/table.md"), &table)?;
    std::fs::write(format!("{out}/jacobi.svg"), svg)?;
    print!("{table}");
    Ok(())
}
