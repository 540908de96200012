//! The distributed sum: as many ranks as fit on the device each sum their
//! block, then combine in a binomial tree with notified puts. Checked
//! against the host's sum.

use dcuda::{RunConfig, Runtime};
use dcuda_rank_kernels::sum::{SumArgs, DISTRIBUTED_SUM};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // ANCHOR: host
    let rt = Runtime::new()?;
    let module = rt.load(&dcuda_examples::rank_ptx())?;
    let config = RunConfig::new(128);
    let info = module.rank_info(&DISTRIBUTED_SUM, &config)?;
    let n = (info.ranks_on_device * config.threads_per_rank()) as usize;

    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let data: Vec<f64> = (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect();
    let input = rt.upload(&data)?;
    let mut partials = rt.alloc::<f64>(info.ranks_on_device as usize)?;
    let mut result = rt.alloc::<f64>(1)?;
    let args = SumArgs {
        data: input.as_ptr(),
        partials: partials.as_mut_ptr(),
        result: result.as_mut_ptr(),
    };
    // SAFETY: the buffers are sized for every rank of the run.
    let report = unsafe { module.run(&DISTRIBUTED_SUM, &config, &args)? };
    // ANCHOR_END: host

    let got = result.download()?[0];
    let want: f64 = data.iter().sum();
    if (got - want).abs() > 1e-9 * want.abs() {
        return Err(format!("distributed_sum: {got} != host sum {want}").into());
    }
    println!(
        "distributed_sum: {} ranks x {} threads correct on the {} backend: {got:.6} (tree {:?}, run {:?})",
        report.ranks,
        config.threads_per_rank(),
        rt.backend(),
        report.timers.first().map(|t| t.elapsed).unwrap_or_default(),
        report.elapsed
    );
    Ok(())
}
