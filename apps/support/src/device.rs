//! What the programs ask of the device: how many ranks or blocks fit, and
//! device-clock stamps queued on a stream.

use crate::Res;
use dcuda::{
    DeviceBuffer, DeviceSlice, Kernel, KernelArgs, LaunchConfig, Module, RankArgs, RankKernel,
    Stream,
};

/// How many ranks of `threads` fit on the device at once, or an error
/// naming the options to change when none does.
pub fn ranks_that_fit<A: RankArgs>(
    module: &Module,
    kernel: &RankKernel<A>,
    threads: u32,
    max_registers: u32,
) -> Res<u32> {
    match module.max_ranks(kernel, threads)? {
        0 => Err(format!(
            "no rank of {threads} threads fits on the device at {max_registers} registers a thread: pass fewer --threads or --max-registers"
        )
        .into()),
        n => Ok(n),
    }
}

/// How many blocks of `threads` fit on the device at once, or an error
/// when none does.
pub fn blocks_that_fit<A: KernelArgs>(
    module: &Module,
    kernel: &Kernel<A>,
    threads: u32,
) -> Res<u32> {
    match module.max_coresident_blocks(kernel, threads, 0)? {
        0 => Err(
            format!("no block of {threads} threads fits on the device: pass fewer --threads")
                .into(),
        ),
        n => Ok(n),
    }
}

/// Queues `clock` (a one-thread kernel writing the device clock,
/// `%globaltimer`, to `stamps[at]`) on `stream`: stamps before and after a
/// baseline's loop time it with the clock the rank kernels use.
///
/// # Safety
/// `stamps` holds slot `at` and outlives the stream's work.
pub unsafe fn clock_stamp(
    stream: &Stream,
    module: &Module,
    clock: &Kernel<(DeviceSlice<u64>, u32)>,
    stamps: &DeviceBuffer<u64>,
    at: u32,
) -> Res<()> {
    stream.launch(
        module,
        clock,
        LaunchConfig::linear(1, 1),
        (stamps.slice(), at),
    )?;
    Ok(())
}
