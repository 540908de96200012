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

/// 32-bit registers an SM holds: 65,536 on every GPU from Volta to
/// Blackwell.
const REGISTERS_PER_SM: u32 = 65_536;

/// The most registers a thread may use while `ranks` ranks of `threads`
/// threads still share `multiprocessors` SMs (the most on any one SM:
/// `ranks` over the SMs, rounded up), in the steps of 8 that the hardware
/// allocates; at most 255, the architecture's limit. A cap the kernel does
/// not reach changes nothing; a lower one spills. One rank of 1024 threads
/// an SM gets 64; three ranks of 256, 80.
pub fn registers_to_share(ranks: u32, threads: u32, multiprocessors: u32) -> u32 {
    let per_sm = ranks.div_ceil(multiprocessors.max(1)).max(1);
    // Saturating: an absurd `--ranks` gets the floor, not a zero divisor.
    let cap = REGISTERS_PER_SM / per_sm.saturating_mul(threads.max(1));
    (cap / 8 * 8).min(255)
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

#[cfg(test)]
mod tests {
    use super::registers_to_share;

    #[test]
    fn registers_left_to_each_thread_of_the_ranks_an_sm_holds() {
        // One H200: 132 SMs.
        assert_eq!(registers_to_share(132, 1024, 132), 64);
        assert_eq!(registers_to_share(320, 256, 132), 80);
        assert_eq!(registers_to_share(160, 512, 132), 64);
        assert_eq!(registers_to_share(264, 512, 132), 64);
        // Fewer ranks than SMs: one an SM, the cap bounded by the hardware.
        assert_eq!(registers_to_share(4, 128, 132), 255);
        assert_eq!(registers_to_share(4, 256, 132), 255);
        assert_eq!(registers_to_share(1, 1024, 132), 64);
        // Many ranks an SM: the 8-register steps round down.
        assert_eq!(registers_to_share(132 * 7, 128, 132), 72);
        // More ranks than could ever share the SMs: no overflow, no cap.
        assert_eq!(registers_to_share(u32::MAX, 1024, 1), 0);
    }
}
