//! The rank DSL example: per-rank statistics with per-thread regions,
//! shared memory, reductions, a scan and a single-thread atomic. Checks the
//! results against the host; on a GPU it also runs the emulator and checks
//! that both give bitwise identical results.

use dcuda::{Backend, BackendChoice, RunConfig, Runtime};
use dcuda_rank_kernels::stats::{StatsArgs, BLOCK_STATS};

const THREADS: u32 = 128;
const RANKS: u32 = 64;

/// Everything the kernel writes, less the tickets (their order depends on
/// timing).
#[derive(PartialEq)]
struct Stats {
    smoothed: Vec<f32>,
    prefix: Vec<f32>,
    sums: Vec<f32>,
    maxes: Vec<f32>,
}

fn input() -> Vec<f32> {
    let mut state = 0x2545_f491u32;
    (0..RANKS * THREADS)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1 << 24) as f32 * 10.0 - 5.0
        })
        .collect()
}

fn run(rt: &Runtime, input: &[f32]) -> Result<Stats, Box<dyn std::error::Error>> {
    let module = rt.load(&dcuda_examples::rank_ptx())?;
    let n = input.len();
    let data = rt.upload(input)?;
    let (smoothed, prefix) = (rt.alloc::<f32>(n)?, rt.alloc::<f32>(n)?);
    let (sums, maxes) = (
        rt.alloc::<f32>(RANKS as usize)?,
        rt.alloc::<f32>(RANKS as usize)?,
    );
    let (tickets, counter) = (rt.alloc::<u32>(RANKS as usize)?, rt.alloc::<u32>(1)?);
    let args = StatsArgs {
        input: data.slice(),
        smoothed: smoothed.slice(),
        prefix: prefix.slice(),
        sums: sums.slice(),
        maxes: maxes.slice(),
        tickets: tickets.slice(),
        counter: counter.slice(),
    };
    // ANCHOR: launch
    // SAFETY: every buffer is sized for RANKS ranks of THREADS threads.
    unsafe { module.run(&BLOCK_STATS, &RunConfig::new(THREADS).ranks(RANKS), &args)? };
    // ANCHOR_END: launch
    let mut t = tickets.download()?;
    t.sort_unstable();
    if t != (0..RANKS).collect::<Vec<_>>() || counter.download()?[0] != RANKS {
        return Err("tickets are not a permutation of the ranks".into());
    }
    Ok(Stats {
        smoothed: smoothed.download()?,
        prefix: prefix.download()?,
        sums: sums.download()?,
        maxes: maxes.download()?,
    })
}

/// The host's answer: smoothing bit for bit, sums and prefixes to rounding.
fn check(input: &[f32], s: &Stats) -> Result<(), String> {
    let n = THREADS as usize;
    for (r, chunk) in input.chunks(n).enumerate() {
        let mut running = 0f64;
        for i in 0..n {
            let (l, c, rt) = (
                chunk[i.saturating_sub(1)],
                chunk[i],
                chunk[(i + 1).min(n - 1)],
            );
            let want = (l + c + rt) / 3.0;
            let got = s.smoothed[r * n + i];
            if got.to_bits() != want.to_bits() {
                return Err(format!("rank {r} element {i}: smoothed {got} != {want}"));
            }
            running += want as f64;
            if (s.prefix[r * n + i] as f64 - running).abs() > 1e-3 {
                return Err(format!(
                    "rank {r} element {i}: prefix {} != {running}",
                    s.prefix[r * n + i]
                ));
            }
        }
        if (s.sums[r] as f64 - running).abs() > 1e-3 {
            return Err(format!("rank {r}: sum {} != {running}", s.sums[r]));
        }
        let max = s.smoothed[r * n..(r + 1) * n]
            .iter()
            .cloned()
            .fold(f32::NEG_INFINITY, f32::max);
        if s.maxes[r] != max {
            return Err(format!("rank {r}: max {} != {max}", s.maxes[r]));
        }
    }
    Ok(())
}

fn checksum(s: &Stats) -> u64 {
    let words = s
        .smoothed
        .iter()
        .chain(&s.prefix)
        .chain(&s.sums)
        .chain(&s.maxes);
    words.fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
        (h ^ x.to_bits() as u64).wrapping_mul(0x100_0000_01b3)
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    dcuda::log::init(); // dcuda's messages to standard error (DCUDA_LOG filters)
    let rt = Runtime::new()?;
    let input = input();
    let stats = run(&rt, &input)?;
    check(&input, &stats)?;
    println!(
        "rank_stats: {RANKS} ranks x {THREADS} threads correct on the {} backend, checksum {:016x}",
        rt.backend(),
        checksum(&stats)
    );
    if rt.backend() == Backend::Gpu {
        let emulator = Runtime::builder()
            .backend(BackendChoice::Emulator)
            .quiet()
            .build()?;
        let emulated = run(&emulator, &input)?;
        if emulated != stats {
            return Err(format!(
                "the emulator's results differ from the GPU's (checksum {:016x})",
                checksum(&emulated)
            )
            .into());
        }
        println!("rank_stats: GPU and CPU emulator results are bitwise identical");
    }
    Ok(())
}
