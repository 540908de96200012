//! Barriers over a communicator, host-measured timers and device timestamps.

use super::comm::Comm;
use super::Runtime;
use crate::abi::{Call, Op};
use crate::arch::{self, Ordering, Scope};
use crate::block::Block;

impl Runtime {
    /// Waits until every rank of `comm` has called `barrier(comm)`. Writes
    /// before it, by any thread of any rank, are visible after it.
    #[inline(always)]
    pub fn barrier(&mut self, block: &mut Block, comm: Comm) {
        if self.spans_processes(comm) {
            self.world_sync(block, Op::Barrier, 0);
        } else {
            self.device_barrier(block);
        }
    }

    /// A world-wide step done by the hosts: every rank of this device
    /// arrives, device rank 0 asks the host to do `op` with the other
    /// processes and waits for its reply, and every rank leaves after it.
    #[inline(always)]
    pub fn world_sync(&mut self, block: &mut Block, op: Op, arg: u32) {
        self.device_barrier(block);
        if block.id() == 0 {
            self.host_call(block, op, arg);
        }
        self.device_barrier(block);
    }

    /// Waits until every rank of this device has called it.
    #[inline(always)]
    pub fn device_barrier(&mut self, block: &mut Block) {
        self.device_barrier_as(block, Call::Barrier)
    }

    /// [`device_barrier`](Self::device_barrier), reported to the watchdog
    /// as part of `call`.
    #[inline(always)]
    pub fn device_barrier_as(&mut self, block: &mut Block, call: Call) {
        block.sync(); // Every thread's writes precede the leader's arrival.
        let ctx = self.ctx();
        let ranks = ctx.ranks;
        let (count, generation) = ctx.barrier();
        let mut waiting_for: Option<u32> = None;
        self.wait_until(block, call, [ranks, 0, 0], || {
            // SAFETY: the barrier words live for the whole run.
            unsafe {
                match waiting_for {
                    None => {
                        let g = arch::load_acquire(generation, Scope::Gpu);
                        let arrived = arch::fetch_add(count, 1, Ordering::AcqRel, Scope::Gpu) + 1;
                        if arrived == ranks {
                            arch::store_relaxed(count, 0, Scope::Gpu);
                            arch::store_release(generation, g.wrapping_add(1), Scope::Gpu);
                            return Ok(0);
                        }
                        waiting_for = Some(g);
                        Err(arrived)
                    }
                    Some(g) => {
                        if arch::load_acquire(generation, Scope::Gpu) != g {
                            Ok(0)
                        } else {
                            Err(arch::load_relaxed(count, Scope::Gpu))
                        }
                    }
                }
            }
        });
    }

    /// Starts (`start`) or stops host timer `id` once every rank of the
    /// world has called it. Each process's host measures the time.
    #[inline(always)]
    pub fn timer(&mut self, block: &mut Block, id: u32, start: bool) {
        let world = self.world(block);
        self.barrier(block, world);
        if block.id() == 0 {
            let op = if start { Op::TimerStart } else { Op::TimerStop };
            self.host_send(block, op, id, &[]);
        }
    }
}
