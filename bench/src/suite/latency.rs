//! Latency: dcuda's ping-pong and host round trip, and the raw flag
//! kernels they are compared with.

use super::{Result, Suite};
use crate::stats::Summary;
use dcuda::{DeviceBuffer, LaunchConfig, MappedBuffer, Module, RunConfig};
use dcuda_bench_kernels::*;
use std::time::{Duration, Instant};

/// What a ping-pong sends.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Ping {
    /// `put_notify` of this many bytes (a multiple of 4).
    Put(u32),
    /// `notify`.
    Notify,
}

impl Suite {
    /// Half round trip of the raw flag ping-pong between thread 0 of two
    /// blocks, µs.
    pub fn raw_flag(&self) -> Result<Summary> {
        self.pooled(2.0, |batches, iters| {
            let mut flags = self.rt.alloc::<u32>(2)?;
            let mut out = self.rt.alloc::<u64>(batches as usize)?;
            // SAFETY: two flags, one output per batch.
            unsafe {
                self.module.launch(
                    &RAW_FLAG_PINGPONG,
                    LaunchConfig::linear(2, 32).cooperative(),
                    (flags.as_mut_ptr(), batches, iters, out.as_mut_ptr()),
                )?
            }
            .wait()?;
            Ok(out.download()?)
        })
    }

    /// Half round trip of the raw ping-pong with `steps` of the runtime's
    /// pieces (see `pingpong_breakdown`) between two blocks of `threads`,
    /// each copying `bytes` to the other first, µs.
    pub fn breakdown(&self, steps: u32, threads: u32, bytes: u32) -> Result<Summary> {
        let stride = super::aligned(bytes as u64) as u32;
        self.pooled(2.0, |batches, iters| {
            let mut counters = self.rt.alloc::<u32>(2)?;
            let mut data = self.rt.alloc::<u8>(4 * stride as usize)?;
            let mut out = self.rt.alloc::<u64>(batches as usize)?;
            let args = BreakdownArgs {
                counters: counters.as_mut_ptr(),
                data: data.as_mut_ptr(),
                bytes,
                stride,
                steps,
            };
            // SAFETY: two counters, 2 * stride bytes per block, one output per batch.
            unsafe {
                self.module.launch(
                    &PINGPONG_BREAKDOWN,
                    LaunchConfig::linear(2, threads).cooperative(),
                    (args, batches, iters, out.as_mut_ptr()),
                )?
            }
            .wait()?;
            Ok(out.download()?)
        })
    }

    /// Half round trip of dcuda's ping-pong between ranks 0 and 1 of
    /// `ranks` ranks of `threads` on `module`, µs.
    pub fn pingpong(
        &self,
        module: &Module,
        ranks: u32,
        ping: Ping,
        threads: u32,
    ) -> Result<Summary> {
        let (mode, words) = match ping {
            Ping::Put(bytes) => (0, (bytes / 4).max(1)),
            Ping::Notify => (1, 1),
        };
        self.pooled(2.0, |batches, iters| {
            let buf = self.rt.alloc::<u32>(2 * words as usize * ranks as usize)?;
            let out = self.rt.alloc::<u64>(batches as usize)?;
            let args = PingArgs {
                buf: buf.slice(),
                out: out.slice(),
                batches,
                iters,
                mode,
                words,
            };
            // SAFETY: 2 * words words per rank, one output per batch.
            unsafe { module.run(&PINGPONG, &RunConfig::new(threads).ranks(ranks), &args)? };
            Ok(out.download()?)
        })
    }

    /// A device-host-device round trip through the runtime's queues, µs,
    /// and the runtime memory per rank (device, pinned host) of that run.
    pub fn host_roundtrip(&self) -> Result<(Summary, (usize, usize))> {
        let mut memory = (0, 0);
        let s = self.pooled(1.0, |batches, iters| {
            let out = self.rt.alloc::<u64>(batches as usize)?;
            let args = HostArgs {
                out: out.slice(),
                batches,
                iters,
            };
            let config = RunConfig::new(self.threads).ranks(2);
            // SAFETY: one output per batch.
            let report = unsafe { self.module.run(&HOST_ROUNDTRIP, &config, &args)? };
            memory = report.memory_per_rank;
            Ok(out.download()?)
        })?;
        Ok((s, memory))
    }

    /// A raw device-host flag round trip, µs, with the device-to-host flag
    /// in device memory (`to_host_in_device`) or mapped host memory, and
    /// likewise the host-to-device flag: digest 000 Table 5.2's placements.
    /// The host answers with a busy loop; the device times the batches.
    pub fn raw_roundtrip(
        &self,
        to_host_in_device: bool,
        to_device_in_device: bool,
    ) -> Result<Summary> {
        self.pooled(1.0, |batches, iters| {
            let (mut to_host, mut to_device) = (
                Flag::new(self, to_host_in_device)?,
                Flag::new(self, to_device_in_device)?,
            );
            let mut out = self.rt.alloc::<u64>(batches as usize)?;
            let (th, td) = (to_host.ptr(), to_device.ptr());
            // SAFETY: one flag each, one output per batch.
            let launch = unsafe {
                self.module.launch(
                    &RAW_ROUNDTRIP,
                    LaunchConfig::linear(1, 32),
                    (th, td as *const u32, batches, iters, out.as_mut_ptr()),
                )?
            };
            let total = (WARMUP_BATCHES + batches) * iters;
            for i in 1..=total {
                let deadline = Instant::now() + Duration::from_secs(10);
                while to_host.read()? != i {
                    if Instant::now() > deadline {
                        return Err(format!("raw round trip: the device stopped at {i}").into());
                    }
                }
                to_device.write(i)?;
            }
            launch.wait()?;
            Ok(out.download()?)
        })
    }

    /// The raw H-H round trip with the runtime's device-side pieces in
    /// `parts` (`PART_*` of the kernels), µs: what each piece costs.
    pub fn host_roundtrip_parts(&self, parts: u32) -> Result<Summary> {
        let ll = parts & PART_LL != 0;
        let threads = if parts & PART_BLOCK != 0 {
            self.threads
        } else {
            32
        };
        self.pooled(1.0, |batches, iters| {
            let to_host = self.rt.alloc_mapped::<u64>(4)?;
            let to_device = self.rt.alloc_mapped::<u32>(1)?;
            let mut counter = self.rt.alloc::<u32>(1)?;
            counter.copy_from(&[0])?;
            let mut out = self.rt.alloc::<u64>(batches as usize)?;
            let args = (
                to_host.device_ptr(),
                to_device.device_ptr() as *const u32,
                counter.as_mut_ptr(),
                parts,
                batches,
                iters,
                out.as_mut_ptr(),
            );
            // SAFETY: the buffers hold what the kernel's contract says.
            let launch = unsafe {
                self.module.launch(
                    &HOST_ROUNDTRIP_PARTS,
                    LaunchConfig::linear(1, threads),
                    args,
                )?
            };
            let arrived = |i: u32| {
                if ll {
                    (0..4).all(|w| (to_host.load_acquire(w) >> 32) as u32 == i)
                } else {
                    to_host.load_acquire(0) as u32 == i
                }
            };
            let total = (WARMUP_BATCHES + batches) * iters;
            for i in 1..=total {
                let deadline = Instant::now() + Duration::from_secs(10);
                while !arrived(i) {
                    if Instant::now() > deadline {
                        return Err(format!(
                            "host round trip parts {parts}: the device stopped at {i}"
                        )
                        .into());
                    }
                }
                to_device.store_release(0, i);
            }
            launch.wait()?;
            Ok(out.download()?)
        })
    }
}

/// A raw round trip's flag: in mapped host memory or in device memory.
enum Flag {
    Host(MappedBuffer<u32>),
    Device(DeviceBuffer<u32>),
}

impl Flag {
    fn new(s: &Suite, device: bool) -> Result<Flag> {
        Ok(if device {
            Flag::Device(s.rt.alloc::<u32>(1)?)
        } else {
            Flag::Host(s.rt.alloc_mapped::<u32>(1)?)
        })
    }

    fn ptr(&mut self) -> *mut u32 {
        match self {
            Flag::Host(m) => m.device_ptr(),
            Flag::Device(d) => d.as_mut_ptr(),
        }
    }

    fn read(&self) -> Result<u32> {
        Ok(match self {
            Flag::Host(m) => m.load_acquire(0),
            Flag::Device(d) => d.download()?[0],
        })
    }

    fn write(&mut self, v: u32) -> Result<()> {
        match self {
            Flag::Host(m) => m.store_release(0, v),
            Flag::Device(d) => d.copy_from(&[v])?,
        }
        Ok(())
    }
}
