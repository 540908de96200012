//! The randomized many-to-many stress test (`kernels-ptx/ranks/src/stress.rs`):
//!
//! ```text
//! stress [--ranks N] [--rounds R] [--fanout K] [--messages M] [--seed S]
//! ```
//!
//! Alone or under `mpirun`. `--messages` sets the rounds so that the whole
//! job sends about that many messages. Every process checks that its ranks
//! got every message the seed says they must, each intact and of its round;
//! a failure prints the seed, which replays the same pattern.

use dcuda::{RunConfig, Runtime};
use dcuda_rank_kernels::stress::{target, StressArgs, STRESS, WORDS};

struct Options {
    ranks: Option<u32>,
    rounds: u32,
    fanout: u32,
    messages: Option<u64>,
    seed: u32,
}

fn parse() -> Result<Options, String> {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() ^ d.as_secs() as u32)
        .unwrap_or(1);
    let mut o = Options {
        ranks: None,
        rounds: 100,
        fanout: 4,
        messages: None,
        seed,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || -> Result<u64, String> {
            let v = args.next().ok_or(format!("{a} needs a value"))?;
            v.parse().map_err(|_| format!("{a}: {v:?} is not a number"))
        };
        match a.as_str() {
            "--ranks" => o.ranks = Some(value()? as u32),
            "--rounds" => o.rounds = value()? as u32,
            "--fanout" => o.fanout = value()? as u32,
            "--messages" => o.messages = Some(value()?),
            "--seed" => o.seed = value()? as u32,
            other => return Err(format!("unknown argument {other:?}; usage: stress [--ranks N] [--rounds R] [--fanout K] [--messages M] [--seed S]")),
        }
    }
    Ok(o)
}

fn main() {
    dcuda::log::init(); // dcuda's messages to standard error (DCUDA_LOG filters)
    if let Err(e) = run() {
        eprintln!("stress: FAILED: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let mut o = parse()?;
    let rt = Runtime::new().map_err(|e| e.to_string())?;
    let module = rt
        .load(&dcuda_tests::rank_ptx())
        .map_err(|e| e.to_string())?;
    let mut config = RunConfig::new(64);
    if let Some(r) = o.ranks {
        config = config.ranks(r);
    }
    let info = module
        .rank_info(&STRESS, &config)
        .map_err(|e| e.to_string())?;
    let (n, mine, first) = (info.rank_count, info.ranks_on_device, info.first_rank);
    if n < 2 {
        return Err("the stress test needs two ranks or more".into());
    }
    o.fanout = o.fanout.clamp(1, n - 1);
    if let Some(m) = o.messages {
        o.rounds = (m / (n as u64 * o.fanout as u64)).max(1) as u32;
    }
    let seed = o.seed;
    let inbox = rt
        .alloc::<u32>(mine as usize * n as usize * WORDS)
        .map_err(|e| e.to_string())?;
    let outbox = rt
        .alloc::<u32>(mine as usize * o.fanout as usize * WORDS)
        .map_err(|e| e.to_string())?;
    let report = rt
        .alloc::<u32>(mine as usize * 4)
        .map_err(|e| e.to_string())?;
    let args = StressArgs {
        inbox: inbox.slice(),
        outbox: outbox.slice(),
        report: report.slice(),
        rounds: o.rounds,
        fanout: o.fanout,
        seed,
    };
    // SAFETY: the buffers hold every rank's part and outlive the run.
    let ran = unsafe { module.run(&STRESS, &config, &args) };
    ran.map_err(|e| format!("seed {seed}: {e}"))?;
    let report = report.download().map_err(|e| e.to_string())?;
    // What this process's ranks must have got, from the seed alone.
    let mut want = 0u64;
    for round in 0..o.rounds {
        for source in 0..n {
            for j in 0..o.fanout {
                let to = target(seed, source, round, j, n);
                if (first..first + mine).contains(&to) {
                    want += 1;
                }
            }
        }
    }
    let (mut checked, mut bad) = (0u64, 0u64);
    for (r, part) in report.chunks(4).enumerate() {
        checked += part[0] as u64;
        bad += part[1] as u64;
        if part[1] != 0 {
            return Err(format!(
                "seed {seed}: world rank {} got {} bad messages, the first in round {} from rank {}",
                first + r as u32, part[1], part[2], part[3]
            ));
        }
    }
    if checked != want || bad != 0 {
        return Err(format!(
            "seed {seed}: {checked} messages checked, {want} sent to this process"
        ));
    }
    println!(
        "stress: process {} of {}: {checked} messages to {mine} of {n} ranks checked ({} rounds, fanout {}, seed {seed}) on the {} backend",
        info.process_index, info.process_count, o.rounds, o.fanout, rt.backend()
    );
    Ok(())
}
