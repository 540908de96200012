//! Host transfer plans (`dcuda::plan`) against the copies a user writes by
//! hand, in the same run, timed the same way (the host clock around each
//! call, every process starting it together: both are host-side copies
//! that return when done). By hand (`by_hand.rs`): process 0 sends each
//! process its contiguous share with `MPI_Send` between host arrays, and
//! each process writes its share with one `Stream::write` (a gather the
//! reverse); a broadcast is an `MPI_Bcast` between the hosts, one write
//! and device copies to the process's other ranks. The plan's first call
//! and its later ones apart (issue 18: a reused plan must be at least as
//! fast as the first use). The plans run twice: from and to host arrays
//! in pageable memory (`plan`, as the by-hand copies) and in pinned memory
//! (`pinned`). Alone or under `mpirun -np N`.
//!
//! bench_plans [--quick] [--out DIR]      (BENCH_PLANS_RANKS: ranks a process, 4)
//!
//! Prints a table and writes `DIR/plans.csv` and `DIR/plans.svg`.

use dcuda::plan::{BroadcastPlan, Part, Placement, ScatterPlan, Split};
use dcuda::{DeviceBuffer, Runtime};
use dcuda_bench::options;
use dcuda_bench::report::Machine;
use dcuda_bench::stats::{summary, Summary};
use dcuda_bench::table::write_plot;
use std::time::Instant;

mod by_hand;
use by_hand::{barrier, ByHand};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Ranks on every process (`BENCH_PLANS_RANKS` sets another count: 1
/// makes a broadcast fill one part a GPU, as the copies by hand in
/// `bench/baselines/plans_by_hand.cu` fill one buffer).
const RANKS: u32 = 4;

/// The first call's time and the later calls' statistics, in ms; every
/// process starts each call together.
fn timed(
    at: &Placement,
    reps: usize,
    mut f: impl FnMut() -> dcuda::Result<()>,
) -> Result<(f64, Summary)> {
    let mut ms = Vec::with_capacity(reps + 1);
    for _ in 0..=reps {
        barrier(at);
        let t = Instant::now();
        f()?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok((ms[0], summary(ms[1..].to_vec())))
}

/// One measured way: `(pattern, bytes, way, first ms, later calls)`.
type Measured = (&'static str, u64, &'static str, f64, Summary);

fn measure(rt: &Runtime, at: &Placement, n: usize, reps: usize) -> Result<Vec<Measured>> {
    let me = at.process();
    let local = at.ranks_of(me).len();
    let bytes = (n * 4) as u64;
    let share = n / at.ranks() as usize; // n is a multiple of the ranks
    let input: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let host = (me == 0).then_some(&input[..]);
    let mut parts: DeviceBuffer<f32> = rt.alloc(local * share)?;
    let scatter = ScatterPlan::<f32>::new(at, Split::Block, n, 0, Part::of(share))?;
    let mut out = vec![0f32; if me == 0 { n } else { 0 }];
    let mut rows = Vec::new();
    let (first, later) = timed(at, reps, || scatter.scatter(host, &mut parts))?;
    rows.push(("scatter", bytes, "plan", first, later));
    let (first, later) = timed(at, reps, || {
        scatter.gather(&parts, (me == 0).then_some(&mut out[..]))
    })?;
    rows.push(("gather", bytes, "plan", first, later));
    let cast_n = n / local.max(1); // every rank gets it: as many bytes land
    let mut wide: DeviceBuffer<f32> = rt.alloc(local * cast_n)?;
    let cast = BroadcastPlan::<f32>::new(at, cast_n, 0, Part::of(cast_n))?;
    let (first, later) = timed(at, reps, || {
        cast.broadcast((me == 0).then_some(&input[..cast_n]), &mut wide)
    })?;
    rows.push((
        "broadcast",
        (cast_n * 4 * local) as u64,
        "plan",
        first,
        later,
    ));
    // The same plans from and to pinned host memory (a mapped buffer's
    // host side): what a user who pins the array gets.
    let pinned_in = rt.alloc_mapped::<f32>(if me == 0 { n } else { 0 })?;
    let pinned_out = rt.alloc_mapped::<f32>(if me == 0 { n } else { 0 })?;
    // SAFETY: host allocations of `len` elements each, which no kernel
    // touches while these views live.
    let (pin_in, pin_out) = unsafe {
        (
            std::slice::from_raw_parts_mut(pinned_in.host_ptr(), pinned_in.len()),
            std::slice::from_raw_parts_mut(pinned_out.host_ptr(), pinned_out.len()),
        )
    };
    pin_in.copy_from_slice(&input[..pin_in.len()]);
    let (first, later) = timed(at, reps, || {
        scatter.scatter((me == 0).then_some(&pin_in[..]), &mut parts)
    })?;
    rows.push(("scatter", bytes, "pinned", first, later));
    let (first, later) = timed(at, reps, || {
        scatter.gather(&parts, (me == 0).then_some(&mut pin_out[..]))
    })?;
    rows.push(("gather", bytes, "pinned", first, later));
    let (first, later) = timed(at, reps, || {
        cast.broadcast((me == 0).then(|| &pin_in[..cast_n]), &mut wide)
    })?;
    let cast_bytes = (cast_n * 4 * local) as u64;
    rows.push(("broadcast", cast_bytes, "pinned", first, later));
    // By hand: MPI between the hosts, one stream copy a process.
    let hand = ByHand {
        at,
        stream: rt.stream()?,
        share,
    };
    let mut staging = vec![0f32; local * share];
    let (first, later) = timed(at, reps, || hand.scatter(&input, &mut parts, &mut staging))?;
    rows.push(("scatter", bytes, "by hand", first, later));
    let (first, later) = timed(at, reps, || hand.gather(&parts, &mut out, &mut staging))?;
    rows.push(("gather", bytes, "by hand", first, later));
    let mut data = input[..cast_n].to_vec();
    let (first, later) = timed(at, reps, || hand.broadcast(&mut data, &mut wide, local))?;
    rows.push((
        "broadcast",
        (cast_n * 4 * local) as u64,
        "by hand",
        first,
        later,
    ));
    Ok(rows)
}

fn main() -> Result<()> {
    dcuda::log::init();
    let o = options::Options::parse("bench_plans")?.no_sections("bench_plans")?;
    let rt = Runtime::new()?;
    let ranks = match std::env::var("BENCH_PLANS_RANKS") {
        Ok(v) => match v.trim().parse::<u32>() {
            Ok(r) if r > 0 => r,
            _ => return Err(format!("BENCH_PLANS_RANKS={v}: expected a positive count").into()),
        },
        Err(_) => RANKS,
    };
    let at = Placement::new(&rt, ranks)?;
    let (sizes, reps): (&[usize], usize) = if o.quick {
        (&[1 << 18, 1 << 22], 3)
    } else {
        (&[1 << 22, 1 << 26, 1 << 28], 10)
    };
    let machine = Machine::new(&rt.device_info().name);
    let mut all = Vec::new();
    for &n in sizes {
        let n = n - n % at.ranks() as usize;
        all.extend(measure(&rt, &at, n, reps)?);
    }
    if at.process() != 0 {
        return Ok(());
    }
    println!(
        "dcuda bench_plans on {} ({:?}), {} process(es) of {ranks} ranks, {reps} repetitions after the first",
        rt.device_info().name,
        rt.backend(),
        at.processes()
    );
    println!(
        "{:<10} {:>11} {:>8} {:>10} {:>10} {:>10} {:>8} {:>9}",
        "pattern", "bytes", "way", "first ms", "median ms", "p99 ms", "GB/s", "hand/plan"
    );
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record([
        "device",
        "commit",
        "processes",
        "pattern",
        "bytes",
        "way",
        "first_ms",
        "median_ms",
        "p99_ms",
        "gbs",
        "hand_over_plan",
    ])?;
    let mut curves: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (pattern, bytes, way, first, s) in &all {
        let gbs = *bytes as f64 / (s.median * 1e6);
        let hand = all
            .iter()
            .find(|r| r.0 == *pattern && r.1 == *bytes && r.2 == "by hand")
            .map(|r| r.4.median / s.median);
        let ratio = hand.map_or("-".to_string(), |h| format!("{h:.3}"));
        println!(
            "{pattern:<10} {bytes:>11} {way:>8} {first:>10.3} {:>10.3} {:>10.3} {gbs:>8.2} {ratio:>9}",
            s.median, s.p99
        );
        csv.write_record([
            machine.device.clone(),
            machine.commit.clone(),
            at.processes().to_string(),
            pattern.to_string(),
            bytes.to_string(),
            way.to_string(),
            format!("{first:.4}"),
            format!("{:.4}", s.median),
            format!("{:.4}", s.p99),
            format!("{gbs:.4}"),
            ratio,
        ])?;
        let name = format!("{pattern} ({way})");
        match curves.iter_mut().find(|c| c.0 == name) {
            Some(c) => c.1.push((*bytes as f64, gbs)),
            None => curves.push((name, vec![(*bytes as f64, gbs)])),
        }
    }
    std::fs::create_dir_all(&o.out_dir)?;
    std::fs::write(o.out_dir.join("plans.csv"), csv.into_inner()?)?;
    let title = "Transfer plans vs copies by hand (median of later calls)";
    write_plot(
        &o.out_dir.join("plans.svg"),
        (title, "bytes", "GB/s"),
        true,
        &curves,
    )?;
    println!("wrote {}/plans.csv, plans.svg", o.out_dir.display());
    Ok(())
}
