//! The single-device benchmarks. Every number is the median (and p99) of
//! samples timed on the device clock, reported beside a raw baseline
//! measured the same way in the same run, and as a ratio to it; the seed
//! thesis's K80 figure stands beside the rows it measured too.
//!
//! ```text
//! bench [--quick] [--out DIR]
//! ```
//!
//! Prints a table and the fitted latency model, and writes to DIR (default
//! `bench-out`): `results.csv`, `latency.svg` (against ranks),
//! `latency-size.svg`, `bandwidth.svg`, `bandwidth-one-rank.svg` and
//! `environment.txt`.

use dcuda::LoadOptions;
use dcuda_bench::model::{fit, Hop, Model};
use dcuda_bench::options;
use dcuda_bench::report::{header, Row, Target};
use dcuda_bench::stats::summary;
use dcuda_bench::suite::{Ping, Suite, ALIGN};
use dcuda_bench_kernels::{PART_ATOMIC, PART_BLOCK, PART_LL, PART_WORDS, PINGPONG};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const SEED_LATENCY: &str = "K80, digest 000 Table 5.1";
const SEED_QUEUES: &str = "K80 queue in the same placement, digest 000 Table 5.2";

/// The rows, printed as they come.
struct Rows(Vec<Row>);

impl Rows {
    fn push(&mut self, row: Row) -> Row {
        println!("{}", row.line());
        self.0.push(row.clone());
        row
    }
}

fn main() -> Result<()> {
    dcuda::log::init(); // dcuda's messages to standard error (DCUDA_LOG filters)
    let opts = options::Options::parse("bench")?;
    let (quick, out_dir) = (opts.quick, opts.out_dir.clone());
    let sections = ["latency", "size", "host", "bandwidth", "scaling"];
    let wants = |section: &str| opts.wants(section, &sections);
    let rt = dcuda::Runtime::new()?;
    let module = rt.load(&dcuda::include_ptx!("dcuda_bench_kernels"))?;
    let s = Suite {
        rt,
        module,
        quick,
        threads: 128,
    };
    let max_ranks = s.module.max_ranks(&PINGPONG, s.threads)?;
    let info = s.rt.device_info().clone();
    let title = format!(
        "dcuda bench on {} ({:?}), {} threads per rank, up to {max_ranks} ranks{}",
        info.name,
        info.backend,
        s.threads,
        if quick { ", quick" } else { "" }
    );
    println!("{title}\n{}", header());
    let mut rows = Rows(Vec::new());
    if wants("latency")? {
        latency(&s, &mut rows)?;
    }
    let models = if wants("size")? {
        latency_by_size(&s, &mut rows)?
    } else {
        Vec::new()
    };
    if wants("host")? {
        let memory = host(&s, &mut rows)?;
        memory_rows(&mut rows, memory);
    }
    if wants("bandwidth")? {
        bandwidth(&s, &mut rows)?;
    }
    if wants("scaling")? {
        scaling(&s, &mut rows, max_ranks)?;
    }

    dcuda_bench::model_file::print("same GPU, 4 B to 64 KiB", &models);
    let machine = dcuda_bench::report::Machine::new(&info.name);
    dcuda_bench::suite::write_outputs(&out_dir, &title, &machine, &rows.0)?;
    // The notified put's model as the same-GPU route (DCUDA_MODEL).
    let put = "notified put, same GPU";
    dcuda_bench::model_file::write(&out_dir, Hop::Device, put, &models)?;
    Ok(())
}

/// The runtime's memory per rank (device, pinned host) against its budget.
fn memory_rows(rows: &mut Rows, memory: (usize, usize)) {
    for (what, bytes) in [("device", memory.0), ("pinned host", memory.1)] {
        let v = summary(vec![bytes as f64 / 1024.0]);
        rows.push(Row::new(
            "memory",
            format!("runtime {what} memory per rank"),
            "KiB",
            v,
        ));
    }
    let total = summary(vec![(memory.0 + memory.1) as f64 / 1024.0]);
    let total = Row::new("memory", "runtime memory per rank, total", "KiB", total);
    let budget = Row::new("memory", "budget", "KiB", summary(vec![64.0]));
    rows.push(total.against(&budget).target(Target::AtMost(1.0)));
}

/// 4-byte latency: dcuda against the raw ping-pong with the barriers a
/// block-wide call needs (the issue's baseline), and the breakdown.
fn latency(s: &Suite, rows: &mut Rows) -> Result<()> {
    let t = s.threads;
    let raw = rows.push(
        Row::new(
            "latency",
            "raw flag ping-pong, thread 0 of 2 blocks",
            "us",
            s.raw_flag()?,
        )
        .x(4.0),
    );
    let fenced = s.breakdown(3, t, 0)?;
    let what = format!("raw ping-pong, {t}-thread blocks, barrier around each step");
    let fenced = rows.push(Row::new("latency", what, "us", fenced).x(4.0).against(&raw));
    for (ping, what, seed) in [
        (Ping::Put(4), "notified put 4 B", 2.4),
        (Ping::Notify, "notify", 1.9),
    ] {
        let v = s.pingpong(&s.module, 2, ping, t)?;
        let row = Row::new("latency", format!("{what}, {t}-thread ranks"), "us", v).x(4.0);
        rows.push(
            row.against(&fenced)
                .target(Target::AtMost(1.3))
                .seed(seed, SEED_LATENCY),
        );
    }
    for (steps, what) in [
        (1, "+ counter bumped with red.release"),
        (2, "+ leader's broadcast barrier"),
    ] {
        let v = s.breakdown(steps, t, 0)?;
        rows.push(
            Row::new("breakdown", format!("raw ping-pong {what}"), "us", v)
                .x(steps as f64)
                .against(&raw),
        );
    }
    // One warp per rank, and ranks of up to 1024 threads in a module capped
    // at 64 registers, as the stencil applications run them.
    let warp = s.breakdown(3, 32, 0)?;
    let warp = rows.push(
        Row::new(
            "latency",
            "raw ping-pong, 32-thread blocks, barriers",
            "us",
            warp,
        )
        .x(4.0),
    );
    for (ping, what) in [(Ping::Put(4), "notified put 4 B"), (Ping::Notify, "notify")] {
        let v = s.pingpong(&s.module, 2, ping, 32)?;
        rows.push(
            Row::new("latency", format!("{what}, 32-thread ranks"), "us", v)
                .x(4.0)
                .against(&warp),
        );
    }
    let capped = s.rt.load_with(
        &dcuda::include_ptx!("dcuda_bench_kernels"),
        &LoadOptions::default().max_registers(64),
    )?;
    for threads in [256, 512, 1024] {
        if capped.max_ranks(&PINGPONG, threads)? < 2 {
            continue;
        }
        let base = s.breakdown(3, threads, 0)?;
        let what = format!("raw ping-pong, {threads}-thread blocks, barriers");
        let base = rows.push(Row::new("latency", what, "us", base).x(threads as f64));
        let v = s.pingpong(&capped, 2, Ping::Notify, threads)?;
        let what = format!("notify, {threads}-thread ranks, 64 registers");
        rows.push(
            Row::new("latency", what, "us", v)
                .x(threads as f64)
                .against(&base),
        );
    }
    Ok(())
}

/// Notified-put latency from 4 B to 64 KiB against the raw ping-pong whose
/// blocks copy as much, and the fitted models of both.
fn latency_by_size(s: &Suite, rows: &mut Rows) -> Result<Vec<(String, Model)>> {
    let sizes: &[u32] = if s.quick {
        &[4, 4096, 65536]
    } else {
        &[4, 64, 1024, 4096, 16384, 65536]
    };
    let (mut put, mut raw) = (Vec::new(), Vec::new());
    for &bytes in sizes {
        let base = s.breakdown(3, s.threads, bytes)?;
        let what = format!("raw ping-pong with a block copy, {bytes} B");
        let base = rows.push(
            Row::new("size", what, "us", base)
                .x(bytes as f64)
                .bytes(bytes as u64, ALIGN),
        );
        let v = s.pingpong(&s.module, 2, Ping::Put(bytes), s.threads)?;
        let what = format!("notified put, {bytes} B");
        rows.push(
            Row::new("size", what, "us", v)
                .x(bytes as f64)
                .bytes(bytes as u64, ALIGN)
                .against(&base),
        );
        raw.push((bytes as f64, base.value.median));
        put.push((bytes as f64, v.median));
    }
    let mut models = Vec::new();
    for (name, points) in [
        ("notified put, same GPU", &put),
        ("raw ping-pong with a copy", &raw),
    ] {
        if let Some(m) = fit(points) {
            models.push((name.to_string(), m));
        }
    }
    Ok(models)
}

/// Host round trips: the raw flags in each placement, and the runtime's
/// queues against the placement it uses. Returns the runtime's memory.
fn host(s: &Suite, rows: &mut Rows) -> Result<(usize, usize)> {
    let mut hh = None;
    // The seed's queue in each placement (K80, digest 000 Table 5.2).
    for (name, to_host_dev, to_device_dev, seed) in [
        ("H-H", false, false, 2.4),
        ("H-D", false, true, 2.4),
        ("D-H", true, false, 1.9),
        ("D-D", true, true, 2.0),
    ] {
        let v = s.raw_roundtrip(to_host_dev, to_device_dev)?;
        let what = format!("raw flag round trip, placement {name} (device->host, host->device)");
        let row = Row::new("host", what, "us", v).seed(seed, SEED_QUEUES);
        let row = rows.push(row);
        hh.get_or_insert(row);
    }
    for (name, parts) in [
        ("a 128-thread block, barriers around", PART_BLOCK),
        ("ring reservation atomic", PART_ATOMIC),
        ("4 posted words before the flag", PART_WORDS),
        (
            "atomic and 4 posted words (the ring before LL)",
            PART_ATOMIC | PART_WORDS,
        ),
        ("4 LL words after a fence", PART_LL),
        (
            "atomic, 4 LL words, 128-thread block",
            PART_ATOMIC | PART_LL | PART_BLOCK,
        ),
    ] {
        let v = s.host_roundtrip_parts(parts)?;
        let what = format!("raw H-H round trip + {name}");
        let hh = hh.as_ref().expect("the H-H placement is measured first");
        rows.push(Row::new("host", what, "us", v).against(hh));
    }
    let (v, memory) = s.host_roundtrip()?;
    let row = Row::new(
        "host",
        "device->host->device round trip (runtime, H-H)",
        "us",
        v,
    );
    let hh = hh.expect("the H-H placement is measured first");
    rows.push(
        row.against(&hh)
            .target(Target::AtMost(1.2))
            .seed(1.9, "K80 queue D-H, digest 000 Table 5.2"),
    );
    Ok(memory)
}

/// Put bandwidth of one rank against one raw block, and of many ranks
/// against as many raw blocks, from 4 B to 64 MiB.
fn bandwidth(s: &Suite, rows: &mut Rows) -> Result<()> {
    let senders = (s
        .module
        .max_ranks(&dcuda_bench_kernels::PUT_BANDWIDTH, s.threads)?
        / 2)
    .max(1);
    let step = if s.quick { 6 } else { 2 };
    for p in (2..=26).step_by(step) {
        let bytes = 1u64 << p;
        let x = bytes as f64;
        let raw = s.raw_copy(bytes, 1)?;
        let raw = rows.push(
            Row::new(
                "bandwidth",
                format!("raw copy, 1 block, {bytes} B"),
                "GB/s",
                raw,
            )
            .x(x)
            .bytes(bytes, ALIGN),
        );
        let one = s.put_bandwidth(bytes, 1)?;
        let mut row = Row::new(
            "bandwidth",
            format!("put from 1 rank, {bytes} B"),
            "GB/s",
            one,
        )
        .x(x)
        .bytes(bytes, ALIGN)
        .against(&raw);
        if bytes >= 256 << 10 {
            row = row.target(Target::AtLeast(0.9));
        }
        if bytes == 1 << 20 {
            row = row.seed(6.9, "K80 1 of 52 ranks, digest 000 Table 5.4");
        }
        rows.push(row);
        let raw = s.raw_copy(bytes, senders)?;
        let what = format!("raw copy, {senders} blocks, {bytes} B each");
        let raw = rows.push(
            Row::new("bandwidth", what, "GB/s", raw)
                .x(x)
                .bytes(bytes, ALIGN),
        );
        let many = s.put_bandwidth(bytes, senders)?;
        let what = format!("put from {senders} ranks, {bytes} B each");
        let mut row = Row::new("bandwidth", what, "GB/s", many)
            .x(x)
            .bytes(bytes, ALIGN)
            .against(&raw);
        if bytes == 1 << 20 {
            row = row.seed(79.3, "K80 26 of 52 ranks, digest 000 Table 5.4");
        }
        rows.push(row);
    }
    Ok(())
}

/// Notified-put latency against the number of ranks on the device.
fn scaling(s: &Suite, rows: &mut Rows, max_ranks: u32) -> Result<()> {
    let mut counts: Vec<u32> = vec![2, 8, 32, 128, 512, 1000];
    counts.retain(|&c| c <= max_ranks);
    if !counts.contains(&max_ranks) {
        counts.push(max_ranks);
    }
    let two = s.pingpong(&s.module, 2, Ping::Put(4), s.threads)?;
    let two = Row::new(
        "scaling",
        "notified put 4 B, 2 ranks on the device",
        "us",
        two,
    )
    .x(2.0);
    let two = rows.push(two);
    for &ranks in counts.iter().filter(|&&r| r > 2) {
        let v = s.pingpong(&s.module, ranks, Ping::Put(4), s.threads)?;
        let what = format!("notified put 4 B, {ranks} ranks on the device");
        let mut row = Row::new("scaling", what, "us", v)
            .x(ranks as f64)
            .against(&two);
        if ranks >= 1000 {
            row = row.target(Target::AtMost(2.0));
        }
        rows.push(row);
    }
    Ok(())
}
