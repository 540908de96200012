//! Barriers over a communicator, host-measured timers and device timestamps.

use super::comm::{Comm, CommKind};
use super::layout::{Call, Op};
use crate::arch::{self, Ordering, Scope};
use crate::rank::collective::{barrier, single};
use crate::rank::Rank;

impl Rank {
    /// Waits until every rank of `comm` has called `barrier(comm)`. Writes
    /// before it, by any thread of any rank, are visible after it.
    pub fn barrier(&mut self, comm: Comm) {
        if comm.kind() == CommKind::World && self.ctx().processes > 1 {
            self.world_sync(Op::Barrier, 0);
        } else {
            self.device_barrier();
        }
    }

    /// A world-wide step done by the hosts: every rank of this device
    /// arrives, device rank 0 asks the host to do `op` with the other
    /// processes and waits for its reply, and every rank leaves after it.
    pub(crate) fn world_sync(&mut self, op: Op, arg: u32) {
        self.device_barrier();
        if self.id == 0 {
            self.host_call(op, arg);
        }
        self.device_barrier();
    }

    /// Waits until every rank of this device has called it.
    pub(crate) fn device_barrier(&mut self) {
        barrier(); // Every thread's writes precede the leader's arrival.
        let ctx = *self.ctx();
        let (count, generation) = (ctx.barrier, ctx.barrier.wrapping_add(1));
        let mut waiting_for: Option<u32> = None;
        self.wait_until(Call::Barrier, [ctx.ranks, 0, 0], || {
            // SAFETY: the barrier words live for the whole run.
            unsafe {
                match waiting_for {
                    None => {
                        let g = arch::load_acquire(generation, Scope::Gpu);
                        let arrived = arch::fetch_add(count, 1, Ordering::AcqRel, Scope::Gpu) + 1;
                        if arrived == ctx.ranks {
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

    /// Starts host timer `id` once every rank of the world has called it.
    /// Each process's host measures the time (see the run report).
    pub fn start_timer(&mut self, id: u32) {
        let comm = self.world();
        self.barrier(comm);
        if self.id == 0 {
            self.host_send(Op::TimerStart, id, &[]);
        }
    }

    /// Stops host timer `id` once every rank of the world has called it.
    pub fn stop_timer(&mut self, id: u32) {
        let comm = self.world();
        self.barrier(comm);
        if self.id == 0 {
            self.host_send(Op::TimerStop, id, &[]);
        }
    }

    /// The device clock in nanoseconds (`%globaltimer`), read once and the
    /// same on every thread.
    pub fn timestamp(&mut self) -> u64 {
        single(self, |_| arch::global_timer())
    }
}
