//! The communication calls of [`Rank`]: communicators, windows, notified
//! access, notifications, matching, barriers, timers and host services.
//! Each is block-collective and delegates to the runtime.

use super::Rank;
use crate::abi::{Call, Fault, LogArg, Op};
use crate::arch;
use crate::memory::{DeviceCopy, DeviceSlice};
use crate::runtime::{Comm, Match, Window};

impl Rank {
    /// The world communicator: every rank of the job.
    #[inline(always)]
    pub fn world(&self) -> Comm {
        self.rt.world(&self.block)
    }

    /// The device communicator: the ranks of this GPU.
    #[inline(always)]
    pub fn device(&self) -> Comm {
        self.rt.device(&self.block)
    }

    /// Creates a window collectively over `comm`: every rank of `comm` calls
    /// it, each with its own memory (which may be empty). Window memory must
    /// be device memory (not shared memory, which other ranks cannot reach).
    /// Windows of ranks on one device may overlap.
    #[inline(always)]
    #[track_caller]
    pub fn win_create<T: DeviceCopy>(&mut self, comm: Comm, mem: DeviceSlice<T>) -> Window<T> {
        arch::block::enter_call(
            "win_create",
            [
                ("comm", comm.context() as u64),
                ("base", mem.as_mut_ptr() as u64),
                ("len", mem.len() as u64),
            ],
        );
        self.traced(Call::WinCreate, (u32::MAX, mem.bytes() as u64), |r| {
            r.rt.create_window(&mut r.block, comm, mem, false)
        })
    }

    /// As [`win_create`](Self::win_create), but notified accesses to this
    /// window are matched by source, window and tag
    /// ([`wait_match`](Self::wait_match)) instead of counted per tag.
    #[inline(always)]
    #[track_caller]
    pub fn win_create_matched<T: DeviceCopy>(
        &mut self,
        comm: Comm,
        mem: DeviceSlice<T>,
    ) -> Window<T> {
        arch::block::enter_call(
            "win_create_matched",
            [
                ("comm", comm.context() as u64),
                ("base", mem.as_mut_ptr() as u64),
                ("len", mem.len() as u64),
            ],
        );
        self.traced(Call::WinCreate, (u32::MAX, mem.bytes() as u64), |r| {
            r.rt.create_window(&mut r.block, comm, mem, true)
        })
    }

    /// Frees a window collectively over its communicator.
    #[inline(always)]
    #[track_caller]
    pub fn win_free<T>(&mut self, win: Window<T>) {
        arch::block::enter_call("win_free", [("window", win.id() as u64)]);
        self.traced(Call::WinFree, (u32::MAX, 0), |r| {
            r.rt.free_window(&mut r.block, win)
        })
    }

    /// Writes `src` to element `offset` of rank `target`'s part of `win`.
    /// The target is not notified. The put sends what every thread of the
    /// rank wrote to `src` before the call; `src` may be reused after
    /// [`flush`](Self::flush).
    #[inline(always)]
    #[track_caller]
    pub fn put<T: DeviceCopy>(
        &mut self,
        win: Window<T>,
        target: u32,
        offset: usize,
        src: DeviceSlice<T>,
    ) {
        arch::block::enter_call(
            "put",
            [
                ("window", win.id() as u64),
                ("target", target as u64),
                ("offset", offset as u64),
                ("source", src.as_mut_ptr() as u64),
                ("count", src.len() as u64),
            ],
        );
        self.traced(
            Call::Put,
            (target, src.bytes() as u64),
            #[inline(always)]
            |r| r.rt.put(&mut r.block, win, target, offset, src),
        )
    }

    /// [`put`](Self::put), then notification `tag` to the target once the
    /// data is there. Puts and notifications to one target arrive in the
    /// order they were issued.
    #[inline(always)]
    #[track_caller]
    pub fn put_notify<T: DeviceCopy>(
        &mut self,
        win: Window<T>,
        target: u32,
        offset: usize,
        src: DeviceSlice<T>,
        tag: u32,
    ) {
        arch::block::enter_call(
            "put_notify",
            [
                ("window", win.id() as u64),
                ("target", target as u64),
                ("offset", offset as u64),
                ("count", src.len() as u64),
                ("tag", tag as u64),
            ],
        );
        self.traced(
            Call::PutNotify,
            (target, src.bytes() as u64),
            #[inline(always)]
            |r| {
                r.rt.put_notify(&mut r.block, win, (target, offset), src, tag)
            },
        )
    }

    /// Reads `dst.len()` elements at element `offset` of rank `target`'s
    /// part of `win` into `dst`. The data is in `dst`, for every thread,
    /// when the call returns.
    #[inline(always)]
    #[track_caller]
    pub fn get<T: DeviceCopy>(
        &mut self,
        win: Window<T>,
        target: u32,
        offset: usize,
        dst: DeviceSlice<T>,
    ) {
        arch::block::enter_call(
            "get",
            [
                ("window", win.id() as u64),
                ("target", target as u64),
                ("offset", offset as u64),
                ("destination", dst.as_mut_ptr() as u64),
                ("count", dst.len() as u64),
            ],
        );
        self.traced(
            Call::Get,
            (target, dst.bytes() as u64),
            #[inline(always)]
            |r| r.rt.get(&mut r.block, win, target, offset, dst),
        )
    }

    /// [`get`](Self::get), then notification `tag` to the *target*, the
    /// owner of the data, which learns that its data was read.
    #[inline(always)]
    #[track_caller]
    pub fn get_notify<T: DeviceCopy>(
        &mut self,
        win: Window<T>,
        target: u32,
        offset: usize,
        dst: DeviceSlice<T>,
        tag: u32,
    ) {
        arch::block::enter_call(
            "get_notify",
            [
                ("window", win.id() as u64),
                ("target", target as u64),
                ("offset", offset as u64),
                ("count", dst.len() as u64),
                ("tag", tag as u64),
            ],
        );
        self.traced(
            Call::GetNotify,
            (target, dst.bytes() as u64),
            #[inline(always)]
            |r| {
                r.rt.get_notify(&mut r.block, win, (target, offset), dst, tag)
            },
        )
    }

    /// A notification without data on a matched window: recorded for
    /// [`wait_match`](Self::wait_match) at rank `target` with this rank as
    /// its source.
    #[inline(always)]
    #[track_caller]
    pub fn notify_matched<T>(&mut self, win: Window<T>, target: u32, tag: u32) {
        arch::block::enter_call(
            "notify_matched",
            [
                ("window", win.id() as u64),
                ("target", target as u64),
                ("tag", tag as u64),
            ],
        );
        self.traced(Call::Notify, (target, 0), |r| {
            r.rt.notify_matched(&mut r.block, win, target, tag)
        })
    }

    /// Waits until every earlier put of this rank on `win` is complete:
    /// afterwards their source buffers may be changed.
    #[inline(always)]
    #[track_caller]
    pub fn flush<T>(&mut self, win: Window<T>) {
        arch::block::enter_call("flush", [("window", win.id() as u64)]);
        self.traced(Call::Flush, (u32::MAX, 0), |r| {
            r.rt.flush(&mut r.block, win)
        })
    }

    /// Sends notification `tag` (`0..USER_TAGS`) to rank `target` of
    /// `comm`, after every earlier put of this rank to it.
    #[inline(always)]
    #[track_caller]
    pub fn notify(&mut self, comm: Comm, target: u32, tag: u32) {
        arch::block::enter_call(
            "notify",
            [
                ("comm", comm.context() as u64),
                ("target", target as u64),
                ("tag", tag as u64),
            ],
        );
        self.traced(Call::Notify, (target, 0), |r| {
            r.rt.notify(&mut r.block, comm, target, tag)
        })
    }

    /// Sends notification `tag` to every rank of `targets` of `comm` (at
    /// most [`MAX_NOTIFY_EACH`](crate::MAX_NOTIFY_EACH)), as
    /// [`notify`](Self::notify) to each in turn would: each after every
    /// earlier put of this rank to it, a target listed twice notified
    /// twice. Where `notify` pays a barrier and a memory fence a target,
    /// this pays one of each for all the targets on this GPU and on mapped
    /// GPUs (lanes of one warp release them together); targets through
    /// the host go one by one. A stencil's halo notifications are the use.
    ///
    /// Every thread must pass the same `targets`.
    #[inline(always)]
    #[track_caller]
    pub fn notify_each(&mut self, comm: Comm, targets: &[u32], tag: u32) {
        arch::block::enter_call(
            "notify_each",
            [
                ("comm", comm.context() as u64),
                ("targets", targets.len() as u64),
                ("list", arch::block::digest(targets)),
                ("tag", tag as u64),
            ],
        );
        self.traced(Call::NotifyEach, (u32::MAX, targets.len() as u64), |r| {
            r.rt.notify_each(&mut r.block, comm, targets, tag)
        })
    }

    /// Waits until `count` notifications of `tag` are available, and consumes them.
    #[inline(always)]
    #[track_caller]
    pub fn wait_notifications(&mut self, tag: u32, count: u32) {
        arch::block::enter_call(
            "wait_notifications",
            [("tag", tag as u64), ("count", count as u64)],
        );
        self.traced(Call::WaitNotifications, (u32::MAX, count as u64), |r| {
            r.rt.wait_notifications(&mut r.block, tag, count)
        })
    }

    /// Consumes `count` notifications of `tag` if that many are available;
    /// returns whether it did. Never waits.
    #[inline(always)]
    #[track_caller]
    pub fn test_notifications(&mut self, tag: u32, count: u32) -> bool {
        arch::block::enter_call(
            "test_notifications",
            [("tag", tag as u64), ("count", count as u64)],
        );
        self.rt.test_notifications(&mut self.block, tag, count)
    }

    /// Waits until `count` notifications that `m` accepts have arrived on
    /// matched windows, and consumes the oldest `count` of them.
    #[inline(always)]
    #[track_caller]
    pub fn wait_match(&mut self, m: Match, count: u32) {
        arch::block::enter_call("wait_match", m.fingerprint(count));
        self.traced(Call::WaitMatch, (u32::MAX, count as u64), |r| {
            r.rt.wait_match(&mut r.block, m, count)
        })
    }

    /// Consumes `count` notifications that `m` accepts if that many have
    /// arrived; returns whether it did. Never waits.
    #[inline(always)]
    #[track_caller]
    pub fn test_match(&mut self, m: Match, count: u32) -> bool {
        arch::block::enter_call("test_match", m.fingerprint(count));
        self.rt.test_match(&mut self.block, m, count)
    }

    /// Waits until every rank of `comm` has called `barrier(comm)`. Writes
    /// before it, by any thread of any rank, are visible after it. Across
    /// processes whose GPUs all map each other, the GPUs' leaders meet in
    /// `ceil(log2(processes))` steps; otherwise the hosts carry it, and
    /// deliver the accesses they carried before it.
    #[inline(always)]
    #[track_caller]
    pub fn barrier(&mut self, comm: Comm) {
        arch::block::enter_call("barrier", [("comm", comm.context() as u64)]);
        self.traced(Call::Barrier, (u32::MAX, 0), |r| {
            r.rt.barrier(&mut r.block, comm)
        })
    }

    /// Starts host timer `id` once every rank of the world has called it.
    /// Each process's host measures the time (see the run report).
    #[inline(always)]
    #[track_caller]
    pub fn start_timer(&mut self, id: u32) {
        arch::block::enter_call("start_timer", [("id", id as u64)]);
        self.rt.timer(&mut self.block, id, true)
    }

    /// Stops host timer `id` once every rank of the world has called it.
    #[inline(always)]
    #[track_caller]
    pub fn stop_timer(&mut self, id: u32) {
        arch::block::enter_call("stop_timer", [("id", id as u64)]);
        self.rt.timer(&mut self.block, id, false)
    }

    /// The device clock in nanoseconds (`%globaltimer`), read once and the
    /// same on every thread.
    #[inline(always)]
    #[track_caller]
    pub fn timestamp(&mut self) -> u64 {
        arch::block::enter_call("timestamp", []);
        self.block.single(|_| arch::global_timer())
    }

    /// A host round trip: asks the host for a reply and waits for it.
    /// Returns the number of round trips so far (the host's count).
    #[inline(always)]
    #[track_caller]
    pub fn host_ping(&mut self) -> u32 {
        arch::block::enter_call("host_ping", []);
        self.rt.host_call(&mut self.block, Op::Ping, 0)
    }

    /// Sends a log message to the host, which formats and prints it while
    /// the kernel runs, prefixed with the rank. Use it through
    /// [`rank_log!`](crate::rank_log).
    #[inline(always)]
    #[track_caller]
    pub fn log(&mut self, format: &'static str, args: &[LogArg]) {
        arch::block::enter_call(
            "log",
            [
                ("format", format.as_ptr() as u64),
                ("arguments", args.len() as u64),
            ],
        );
        self.rt.log(&mut self.block, format, args)
    }

    /// Ends the whole run with an error, as `MPI_Abort` does: the host
    /// reports `code` and `values` as this rank's error (the host's
    /// `dcuda::Error::RankCall` with call `abort`: "the rank kernel
    /// aborted the run with code 1 (values 5000, 4096, 0)"), every other
    /// rank, on every process, is released from whatever it waits for,
    /// and the run returns that error. The place for
    /// a check that the kernel cannot recover from, such as a buffer too
    /// small for what arrived. Only a run's first error is reported.
    #[inline(always)]
    #[track_caller]
    pub fn abort(&mut self, code: u32, values: [u64; 3]) -> ! {
        arch::block::enter_call("abort", [("code", code as u64)]);
        let [a, b, c] = values;
        self.rt.fail(
            &mut self.block,
            Call::Abort,
            Fault::Aborted,
            [code as u64, a, b, c],
        )
    }
}
