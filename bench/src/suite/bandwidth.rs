//! Bandwidth: puts from one or many ranks, and the raw copy kernel with
//! as many blocks of the same thread count.

use super::{aligned, trial_bandwidths, Result, Suite};
use crate::stats::{summary, Summary};
use dcuda::{LaunchConfig, RunConfig};
use dcuda_bench_kernels::*;

impl Suite {
    /// Repetitions per trial: about 64 MiB moved, at least one.
    fn reps(&self, total: u64) -> u32 {
        let cap = if self.quick { 8 } else { 256 };
        ((64u64 << 20) / total.max(1)).clamp(1, cap) as u32
    }

    /// GB/s of `senders` ranks each putting `bytes` to a partner on this
    /// device, per trial.
    pub fn put_bandwidth(&self, bytes: u64, senders: u32) -> Result<Summary> {
        let stride = aligned(bytes);
        let (reps, trials) = (self.reps(bytes * senders as u64), self.trials());
        let len = (stride * senders as u64) as usize;
        let (src, dst) = (self.rt.alloc::<u8>(len)?, self.rt.alloc::<u8>(len)?);
        let out = self.rt.alloc::<u64>(2 * (trials * senders) as usize)?;
        let args = BandwidthArgs {
            src: src.slice(),
            dst: dst.slice(),
            bytes,
            stride,
            senders,
            reps,
            trials,
            out: out.slice(),
            pairing: NEIGHBOURS,
        };
        let config = RunConfig::new(self.threads).ranks(2 * senders);
        // SAFETY: `stride` bytes per sender in both buffers, two stamps per
        // sender and trial.
        unsafe { self.module.run(&PUT_BANDWIDTH, &config, &args)? };
        let moved = (bytes * senders as u64 * reps as u64) as f64;
        Ok(summary(trial_bandwidths(
            &out.download()?,
            senders as usize,
            moved,
        )))
    }

    /// GB/s of the raw copy kernel: `blocks` blocks each copying `bytes`,
    /// per trial.
    pub fn raw_copy(&self, bytes: u64, blocks: u32) -> Result<Summary> {
        let stride = aligned(bytes);
        let (reps, trials) = (self.reps(bytes * blocks as u64), self.trials());
        let len = (stride * blocks as u64) as usize;
        let (src, mut dst) = (self.rt.alloc::<u8>(len)?, self.rt.alloc::<u8>(len)?);
        let mut out = self.rt.alloc::<u64>(2 * (trials * blocks) as usize)?;
        let mut sync = self.rt.alloc::<u32>(1)?;
        let config = LaunchConfig::linear(blocks, self.threads).cooperative();
        // SAFETY: `stride` bytes per block in both buffers, one zeroed
        // word, two stamps per block and trial; `stride` is a multiple of 8.
        unsafe {
            self.module.launch(
                &RAW_COPY,
                config,
                (CopyArgs {
                    src: src.as_ptr(),
                    dst: dst.as_mut_ptr(),
                    bytes,
                    stride,
                    reps,
                    trials,
                    sync: sync.as_mut_ptr(),
                    out: out.as_mut_ptr(),
                },),
            )?
        }
        .wait()?;
        let moved = (bytes * blocks as u64 * reps as u64) as f64;
        Ok(summary(trial_bandwidths(
            &out.download()?,
            blocks as usize,
            moved,
        )))
    }
}
