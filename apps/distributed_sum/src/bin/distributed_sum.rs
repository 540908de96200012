//! The distributed sum: as many ranks as fit on the device each sum their
//! block, then combine in a binomial tree with notified puts. Checked
//! against the host's sum. Under `mpirun -np N` the tree spans the ranks of
//! every process (one GPU each); process 0 makes the input, scatters it
//! to the ranks with a transfer plan, and checks the total.

use dcuda::plan::{Part, Placement, ScatterPlan, Split};
use dcuda::{RunConfig, Runtime};
use distributed_sum_kernels::{value, SumArgs, DISTRIBUTED_SUM, DISTRIBUTED_SUM_REDUCE};

/// Registers a thread: see `main`.
const REGISTERS: u32 = 56;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    dcuda::log::init(); // dcuda's messages to standard error (DCUDA_LOG filters)
                        // ANCHOR: host
    let rt = Runtime::new()?;
    // 56 registers a thread fit 9 ranks of 128 threads on a multiprocessor
    // (1188 on an H200); uncapped, ptxas gives the kernels 92 (5 ranks).
    // The cap spills 84 and 124 bytes (ptxas -v) in the two kernels'
    // runtime calls (docs/design.md, "distributed_sum loads capped").
    let capped = dcuda::LoadOptions::default().max_registers(REGISTERS);
    let module = rt.load_with(&dcuda::include_ptx!("distributed_sum_kernels"), &capped)?;
    // As many ranks as fit on the device, of both kernels (they share the
    // buffers, sized for the run's ranks).
    let fit = module
        .max_ranks(&DISTRIBUTED_SUM, 128)?
        .min(module.max_ranks(&DISTRIBUTED_SUM_REDUCE, 128)?);
    let config = RunConfig::new(128).ranks(fit);
    let info = module.rank_info(&DISTRIBUTED_SUM, &config)?;
    let threads = config.threads_per_rank() as u64;
    // Process 0 holds the whole input; a scatter plan gives every rank its
    // block of `threads` values (see "Moving data in and out").
    let n = info.rank_count as usize * threads as usize;
    let at = Placement::new(&rt, info.ranks_on_device)?;
    let load = ScatterPlan::<f64>::new(&at, Split::Block, n, 0, Part::of(threads as usize))?;
    let data: Vec<f64> = match info.process_index {
        0 => (0..n as u64).map(value).collect(),
        _ => Vec::new(),
    };
    let mut input = rt.alloc::<f64>(info.ranks_on_device as usize * threads as usize)?;
    load.scatter((info.process_index == 0).then_some(&data[..]), &mut input)?;
    let partials = rt.alloc::<f64>(info.rank_count as usize)?;
    let result = rt.alloc::<f64>(1)?;
    let args = SumArgs {
        data: input.slice(),
        partials: partials.slice(),
        result: result.slice(),
    };
    // SAFETY: the buffers are sized for every rank of the run and outlive it.
    let report = unsafe { module.run(&DISTRIBUTED_SUM, &config, &args)? };
    // ANCHOR_END: host
    let tree = result.download()?[0];
    // The same with the library's reduce_to; same buffers.
    // SAFETY: as above.
    let reduced = unsafe { module.run(&DISTRIBUTED_SUM_REDUCE, &config, &args)? };

    if info.first_rank != 0 {
        println!(
            "distributed_sum: process {} ran world ranks {}..{}",
            info.process_index,
            info.first_rank,
            info.first_rank + info.ranks_on_device
        );
        return Ok(());
    }
    let got = tree;
    let by_reduce = result.download()?[0];
    let want: f64 = (0..info.rank_count as u64 * threads).map(value).sum();
    for (how, got) in [("tree", got), ("reduce_to", by_reduce)] {
        if (got - want).abs() > 1e-9 * want.abs() {
            return Err(format!("distributed_sum ({how}): {got} != host sum {want}").into());
        }
    }
    // On a GPU, the co-residency the cap buys: a fall shows here
    // (scripts/gpu-run.sh checks it).
    if rt.backend() == dcuda::Backend::Gpu {
        let per_sm = info.ranks_on_device / rt.device_info().multiprocessors;
        println!("distributed_sum: {per_sm} ranks per multiprocessor");
    }
    println!(
        "distributed_sum: {} ranks ({} processes) x {} threads correct on the {} backend: {got:.6} (tree {:?}, run {:?}; reduce_to {:?}, run {:?})",
        info.rank_count,
        info.process_count,
        config.threads_per_rank(),
        rt.backend(),
        report.timers.first().map(|t| t.elapsed).unwrap_or_default(),
        report.elapsed,
        reduced.timers.first().map(|t| t.elapsed).unwrap_or_default(),
        reduced.elapsed
    );
    Ok(())
}
