//! Running rank kernels: the per-run runtime state, the persistent launch,
//! and the host's progress loop (command ring, replies, logging, timers,
//! watchdog, errors).

use crate::error::{Error, Result};
use crate::memory::{DeviceBuffer, MappedBuffer};
use crate::module::{Launch, Module};
use crate::runtime::{Device, Runtime};
use crate::world::{Syncs, World};
use dcuda_device::kernel::{RankArgs, RankKernel};
use dcuda_device::rank::WARP;
use dcuda_device::runtime::{
    format_log, Call, Command, ErrorRecord, LogArg, MatchRecord, Op, Peer, RankContext, Reply,
    Route, Transfer, WaitStatus, WindowEntry, MATCH_LOG, MAX_WINDOWS, STATUS_FINISHED, TAGS,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How to run a rank kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunConfig {
    threads_per_rank: u32,
    ranks: Option<u32>,
    watchdog: Option<Duration>,
    notification_start: u32,
}

impl RunConfig {
    /// Ranks of `threads_per_rank` threads (a multiple of 32, at most
    /// 1024), as many as can be co-resident.
    pub fn new(threads_per_rank: u32) -> Self {
        let watchdog = std::env::var("DCUDA_WATCHDOG_SECS")
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .map(|s| (s > 0.0).then(|| Duration::from_secs_f64(s)))
            .unwrap_or(Some(Self::DEFAULT_WATCHDOG));
        RunConfig {
            threads_per_rank,
            ranks: None,
            watchdog,
            notification_start: 0,
        }
    }

    /// The watchdog's default patience.
    pub const DEFAULT_WATCHDOG: Duration = Duration::from_secs(10);

    /// Run `ranks` ranks instead of as many as fit (more is an error).
    pub fn ranks(mut self, ranks: u32) -> Self {
        self.ranks = Some(ranks);
        self
    }

    /// Abort the run, with a report of what every rank waits on, when all
    /// unfinished ranks have waited without progress this long
    /// (default 10 s, or `DCUDA_WATCHDOG_SECS`; 0 turns it off).
    pub fn watchdog(mut self, after: Option<Duration>) -> Self {
        self.watchdog = after;
        self
    }

    /// Start every notification counter at `start` (tests use values near
    /// the wrap-around).
    pub fn notification_start(mut self, start: u32) -> Self {
        self.notification_start = start;
        self
    }

    /// Threads per rank.
    pub fn threads_per_rank(&self) -> u32 {
        self.threads_per_rank
    }
}

/// Where this process's ranks sit, as dCUDA's `dcuda_rank_info`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankInfo {
    /// Ranks in the job.
    pub rank_count: u32,
    /// Ranks on this device (this process runs them).
    pub ranks_on_device: u32,
    /// World rank of this device's first rank.
    pub first_rank: u32,
    /// Devices used on this node, and this one's index.
    pub device_count: u32,
    /// This device's index on the node.
    pub device_index: u32,
    /// Nodes in the job, and this one's index.
    pub node_count: u32,
    /// This node's index.
    pub node_index: u32,
    /// Processes in the job.
    pub process_count: u32,
    /// This process's index.
    pub process_index: u32,
}

/// A host-measured timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerRecord {
    /// The id the kernel gave it.
    pub id: u32,
    /// Time between `start_timer` and `stop_timer` (once all ranks called each).
    pub elapsed: Duration,
}

/// What a run produced besides its memory effects.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// Ranks that ran.
    pub ranks: u32,
    /// From launch to the end of the kernel, measured on the host.
    pub elapsed: Duration,
    /// Timers the kernel started and stopped, in the order they stopped.
    pub timers: Vec<TimerRecord>,
    /// Log messages, `(device rank, text)`, in the order they arrived (they
    /// were also printed live).
    pub logs: Vec<(u32, String)>,
    /// Host round trips served.
    pub host_calls: u64,
    /// Runtime memory per rank in bytes: device memory, pinned host memory.
    pub memory_per_rank: (usize, usize),
}

/// The runtime's memory for one run. Dropped after the kernel ends.
struct RunState {
    ranks: u32,
    _local: DeviceBuffer<u32>,
    _remote: MappedBuffer<u32>,
    _host_done: MappedBuffer<u32>,
    _remote_active: DeviceBuffer<u32>,
    _peers: DeviceBuffer<u8>,
    _windows: DeviceBuffer<u8>,
    _barrier: DeviceBuffer<u32>,
    abort: DeviceBuffer<u32>,
    error: DeviceBuffer<u8>,
    status: MappedBuffer<u8>,
    ring: MappedBuffer<u8>,
    ring_len: u32,
    _ring_reserve: DeviceBuffer<u32>,
    ring_consumed: MappedBuffer<u32>,
    replies: MappedBuffer<u8>,
    _match_log: DeviceBuffer<u8>,
    _match_counters: DeviceBuffer<u32>,
    context: DeviceBuffer<u8>,
    args: DeviceBuffer<u8>,
    memory_per_rank: (usize, usize),
}

fn bytes<T>(n: usize) -> usize {
    n * std::mem::size_of::<T>()
}

impl RunState {
    /// Allocates the run's memory; in a job of several processes, also
    /// sets up the run's world with the other processes.
    fn new<A: RankArgs>(
        rt: &Runtime,
        ranks: u32,
        config: &RunConfig,
        args: &A,
    ) -> Result<(RunState, Option<Arc<World>>)> {
        let n = ranks as usize;
        let ring_len = (n * 4).max(256).next_power_of_two() as u32;
        let local = rt.upload(&vec![config.notification_start; n * TAGS])?;
        // Written by the host, polled by the ranks: pinned host memory (the
        // fastest placement measured for host-to-device signals).
        let remote = rt.alloc_mapped::<u32>(n * TAGS)?;
        let host_done = rt.alloc_mapped::<u32>(n)?;
        let remote_active = rt.alloc::<u32>(1)?;
        let mut world = match rt.job() {
            Some(job) => Some(World::setup(
                job.clone(),
                rt,
                ranks,
                local.addr(),
                remote.host_ptr() as usize,
                host_done.host_ptr() as usize,
                remote_active.addr(),
            )?),
            None => None,
        };
        let (world_first, world_size) =
            world.as_ref().map_or((0, ranks), |w| (w.first(), w.size()));
        let peer_table: Vec<Peer> = match &world {
            None => vec![Peer {
                first: 0,
                ranks,
                route: Route::Local as u32,
                _pad: 0,
                notifications: local.as_ptr() as *mut u32,
            }],
            Some(w) => {
                let routes = w.routes.lock().unwrap_or_else(|e| e.into_inner()).clone();
                routes
                    .iter()
                    .enumerate()
                    .map(|(p, &route)| Peer {
                        first: w.firsts[p],
                        ranks: w.firsts[p + 1] - w.firsts[p],
                        route: route as u32,
                        _pad: 0,
                        notifications: match route {
                            Route::Local => local.as_ptr() as *mut u32,
                            Route::Direct => w.peer_counters[p] as usize as *mut u32,
                            Route::Host => std::ptr::null_mut(),
                        },
                    })
                    .collect()
            }
        };
        let peers = upload_slice(rt, &peer_table)?;
        let windows = rt.alloc::<u8>(bytes::<WindowEntry>(MAX_WINDOWS * world_size as usize))?;
        if let Some(w) = &mut world {
            w.attach(windows.addr(), peers.addr());
        }
        let barrier = rt.alloc::<u32>(2)?;
        let abort = rt.alloc::<u32>(1)?;
        let error = rt.alloc::<u8>(bytes::<ErrorRecord>(1))?;
        let status = rt.alloc_mapped::<u8>(bytes::<WaitStatus>(n))?;
        let ring = rt.alloc_mapped::<u8>(bytes::<Command>(ring_len as usize))?;
        let ring_reserve = rt.alloc::<u32>(1)?;
        let ring_consumed = rt.alloc_mapped::<u32>(1)?;
        let replies = rt.alloc_mapped::<u8>(bytes::<Reply>(n))?;
        let match_log = rt.alloc::<u8>(bytes::<MatchRecord>(n * MATCH_LOG))?;
        let match_counters = rt.alloc::<u32>(2 * n)?;
        let addr = |b: &DeviceBuffer<u32>| b.as_ptr() as usize as u64;
        let context = RankContext {
            ranks,
            world_first,
            world_size,
            notification_start: config.notification_start,
            local_notifications: local.as_ptr() as *mut u32,
            remote_notifications: remote.device_ptr(),
            windows: windows.as_ptr() as *mut WindowEntry,
            barrier: barrier.as_ptr() as *mut u32,
            abort: abort.as_ptr() as *mut u32,
            error: error.as_ptr() as *mut ErrorRecord,
            status: status.device_ptr() as *mut WaitStatus,
            ring: ring.device_ptr() as *mut Command,
            ring_len,
            _pad: 0,
            ring_reserve: ring_reserve.as_ptr() as *mut u32,
            ring_consumed: ring_consumed.device_ptr(),
            replies: replies.device_ptr() as *mut Reply,
            match_log: match_log.as_ptr() as *mut MatchRecord,
            match_reserve: match_counters.as_ptr() as *mut u32,
            match_retired: (addr(&match_counters) as usize + bytes::<u32>(n)) as *mut u32,
            status_after_ns: 1_000_000,
            processes: peer_table.len() as u32,
            _pad2: 0,
            peers: peers.as_ptr() as *const Peer,
            host_done: host_done.device_ptr(),
            remote_active: remote_active.as_ptr(),
        };
        let context_buffer = upload_raw(rt, &context)?;
        let args_buffer = upload_raw(rt, args)?;
        let device = local.len() * 4 + windows.len() + match_log.len() + match_counters.len() * 4;
        let host =
            status.len() + ring.len() + replies.len() + remote.len() * 4 + host_done.len() * 4;
        let state = RunState {
            ranks,
            _local: local,
            _remote: remote,
            _host_done: host_done,
            _remote_active: remote_active,
            _peers: peers,
            _windows: windows,
            _barrier: barrier,
            abort,
            error,
            status,
            ring,
            ring_len,
            _ring_reserve: ring_reserve,
            ring_consumed,
            replies,
            _match_log: match_log,
            _match_counters: match_counters,
            context: context_buffer,
            args: args_buffer,
            memory_per_rank: (device / n, host / n),
        };
        Ok((state, world.map(Arc::new)))
    }

    fn abort_run(&self) -> Result<()> {
        let one = 1u32;
        match &*self.abort.runtime().device {
            Device::Gpu(g) => {
                g.copy_to_device(self.abort.addr(), &one as *const u32 as *const u8, 4)
            }
            Device::Emulator(_) => {
                // SAFETY: emulated device memory is host memory; the flag is a u32.
                unsafe {
                    AtomicU32::from_ptr(self.abort.as_ptr() as *mut u32).store(1, Ordering::Release)
                };
                Ok(())
            }
        }
    }

    fn status(&self, rank: u32) -> WaitStatus {
        // SAFETY: in bounds; the device writes the slot with a release of `state`.
        unsafe {
            let p = (self.status.host_ptr() as *const WaitStatus).add(rank as usize);
            let state =
                AtomicU32::from_ptr(&raw const (*p).state as *mut u32).load(Ordering::Acquire);
            let mut s = p.read_volatile();
            s.state = state;
            s
        }
    }
}

/// Copies plain values to a fresh device allocation.
fn upload_slice<T: Copy>(rt: &Runtime, values: &[T]) -> Result<DeviceBuffer<u8>> {
    let buf = rt.alloc::<u8>(std::mem::size_of_val(values))?;
    // SAFETY: plain data, viewed as its bytes.
    let raw = unsafe {
        std::slice::from_raw_parts(values.as_ptr() as *const u8, std::mem::size_of_val(values))
    };
    rt.write_device(buf.addr(), raw)?;
    Ok(buf)
}

/// Copies one plain value to a fresh device allocation.
fn upload_raw<T: Copy>(rt: &Runtime, value: &T) -> Result<DeviceBuffer<u8>> {
    upload_slice(rt, std::slice::from_ref(value))
}

impl Module {
    fn resolve_ranks<A: RankArgs>(
        &self,
        kernel: &RankKernel<A>,
        config: &RunConfig,
    ) -> Result<u32> {
        let name = kernel.name();
        let t = config.threads_per_rank;
        if t == 0 || !t.is_multiple_of(WARP) || t > 1024 {
            return Err(Error::InvalidLaunch {
                kernel: name.into(),
                reason: format!("threads per rank must be a multiple of {WARP} between {WARP} and 1024, got {t}"),
            });
        }
        let max = self.max_ranks(kernel, t)?;
        match config.ranks {
            Some(0) => Err(Error::InvalidLaunch {
                kernel: name.into(),
                reason: "a run needs at least one rank".into(),
            }),
            Some(r) if r > max => Err(Error::InvalidLaunch {
                kernel: name.into(),
                reason: format!(
                    "{r} ranks of {t} threads requested, but at most {max} can be co-resident"
                ),
            }),
            Some(r) => Ok(r),
            None if max == 0 => Err(Error::InvalidLaunch {
                kernel: name.into(),
                reason: format!("no rank of {t} threads fits on the device"),
            }),
            None => Ok(max),
        }
    }

    /// Where the ranks of a run with `config` would sit.
    pub fn rank_info<A: RankArgs>(
        &self,
        kernel: &RankKernel<A>,
        config: &RunConfig,
    ) -> Result<RankInfo> {
        let ranks = self.resolve_ranks(kernel, config)?;
        if let Some(job) = self.runtime().job() {
            // Every process's rank count, in process order.
            let counts = crate::network::all_gather(
                &*job.net,
                crate::network::INFO_CHANNEL,
                ranks.to_le_bytes().to_vec(),
            )?;
            let counts: Vec<u32> = counts
                .iter()
                .map(|c| u32::from_le_bytes(c[..4].try_into().unwrap_or_default()))
                .collect();
            let me = job.process() as usize;
            return Ok(RankInfo {
                rank_count: counts.iter().sum(),
                ranks_on_device: ranks,
                first_rank: counts[..me].iter().sum(),
                device_count: job.local_count,
                device_index: job.local_index,
                node_count: job.nodes(),
                node_index: job.node(),
                process_count: job.processes(),
                process_index: job.process(),
            });
        }
        Ok(RankInfo {
            rank_count: ranks,
            ranks_on_device: ranks,
            first_rank: 0,
            device_count: 1,
            device_index: self.runtime().device_info().ordinal as u32,
            node_count: 1,
            node_index: 0,
            process_count: 1,
            process_index: 0,
        })
    }

    /// Starts a rank kernel: every rank co-resident (a cooperative launch),
    /// and a host thread serving them. [`RankRun::wait`] returns the report.
    ///
    /// # Safety
    /// The pointers in `args` must be valid for every access the ranks make
    /// and outlive the run.
    pub unsafe fn start<A: RankArgs>(
        &self,
        kernel: &RankKernel<A>,
        config: &RunConfig,
        args: &A,
    ) -> Result<RankRun> {
        let ranks = self.resolve_ranks(kernel, config)?;
        let (state, world) = RunState::new(self.runtime(), ranks, config, args)?;
        let launch = self.launch_rank_kernel(
            kernel,
            ranks,
            config.threads_per_rank,
            state.context.addr(),
            state.args.addr(),
            *args,
        )?;
        let watchdog = config.watchdog;
        let started = Instant::now();
        let server = std::thread::Builder::new()
            .name("dcuda-progress".into())
            .spawn(move || serve(state, world, launch, watchdog, started))
            .map_err(|e| Error::InvalidLaunch {
                kernel: kernel.name().into(),
                reason: format!("cannot start the progress thread: {e}"),
            })?;
        Ok(RankRun {
            server: Some(server),
        })
    }

    /// Runs a rank kernel to the end: [`start`](Self::start), then wait.
    ///
    /// # Safety
    /// As for [`start`](Self::start).
    pub unsafe fn run<A: RankArgs>(
        &self,
        kernel: &RankKernel<A>,
        config: &RunConfig,
        args: &A,
    ) -> Result<RunReport> {
        self.start(kernel, config, args)?.wait()
    }
}

/// A running rank kernel. Dropping it waits for the end.
#[must_use = "a run goes on until waited for; dropping it waits"]
pub struct RankRun {
    server: Option<std::thread::JoinHandle<Result<RunReport>>>,
}

impl RankRun {
    /// Waits for the kernel to end; returns its report, or the first error
    /// a rank reported, the watchdog's report, or a kernel fault.
    pub fn wait(mut self) -> Result<RunReport> {
        self.join()
    }

    fn join(&mut self) -> Result<RunReport> {
        match self.server.take() {
            None => Ok(RunReport::default()),
            Some(h) => h.join().unwrap_or_else(|p| {
                Err(Error::KernelFault {
                    kernel: "progress thread".into(),
                    message: format!("{:?}", p.downcast_ref::<String>()),
                })
            }),
        }
    }
}

impl Drop for RankRun {
    fn drop(&mut self) {
        let _ = self.join();
    }
}

/// What the watchdog says about one waiting rank.
fn describe_wait(rank: u32, s: &WaitStatus) -> String {
    let what = match Call::from_u32(s.state.wrapping_sub(1)) {
        Some(Call::WaitNotifications) => format!(
            "wait_notifications(tag {}, count {}): {} available",
            s.a, s.b, s.seen as i32
        ),
        Some(Call::Barrier) => format!("barrier over {} ranks: {} arrived", s.a, s.seen),
        Some(Call::WaitMatch) => {
            let any = |v: u32| {
                if v == u32::MAX {
                    "any".to_string()
                } else {
                    v.to_string()
                }
            };
            format!(
                "wait_match(source {}, tag {}, count {}): {} match",
                any(s.c),
                any(s.a),
                s.b,
                s.seen
            )
        }
        Some(Call::PutNotify) => format!(
            "put_notify to rank {} (window {}, tag {}): its matching log is full",
            s.c, s.a, s.b
        ),
        Some(Call::HostCall) => format!("a host call (op {}): waiting for the host", s.a),
        Some(other) => format!("{} ({}, {}, {})", other.name(), s.a, s.b, s.c),
        None => format!("state {}", s.state),
    };
    format!("  rank {rank}: {what}")
}

/// The host's side of a run, on its own thread until the kernel ends.
fn serve(
    state: RunState,
    world: Option<Arc<World>>,
    launch: Launch,
    watchdog: Option<Duration>,
    started: Instant,
) -> Result<RunReport> {
    let receiver = world.as_ref().map(|w| w.start_receiver());
    let kernel = launch.kernel().to_string();
    let outcome = progress(&state, world.as_deref(), launch, watchdog, started);
    if let Some(w) = &world {
        w.stop();
    }
    if let Some(r) = receiver {
        let _ = r.join();
    }
    let Some(w) = &world else {
        return outcome;
    };
    // Tell the other processes why this one failed, or learn why they did.
    match outcome {
        Err(Error::PeerFailed { .. }) => outcome,
        Err(e) => {
            w.broadcast_abort(&format!("process {}: {e}", w.me()));
            Err(e)
        }
        Ok(report) => match w.failure() {
            Some((process, message)) if process != w.me() => Err(Error::PeerFailed {
                kernel,
                process,
                message,
            }),
            Some((_, message)) => {
                let e = Error::Network {
                    call: "receive",
                    reason: message,
                };
                w.broadcast_abort(&format!("process {}: {e}", w.me()));
                Err(e)
            }
            None => Ok(report),
        },
    }
}

/// Everything the progress loop keeps between iterations.
struct Progress {
    report: RunReport,
    timers: HashMap<u32, Instant>,
    partial: HashMap<u32, (Vec<u8>, Vec<LogArg>)>,
    replies: Vec<u32>,
    syncs: Syncs,
}

/// The progress loop: serves the command ring until the kernel ends (and,
/// in a job, until every process has ended it), watching for stalls and
/// for other processes' failures.
fn progress(
    state: &RunState,
    world: Option<&World>,
    launch: Launch,
    watchdog: Option<Duration>,
    started: Instant,
) -> Result<RunReport> {
    let mut p = Progress {
        report: RunReport {
            ranks: state.ranks,
            memory_per_rank: state.memory_per_rank,
            ..RunReport::default()
        },
        timers: HashMap::new(),
        partial: HashMap::new(),
        replies: vec![0u32; state.ranks as usize],
        syncs: Syncs::default(),
    };
    let mut pos: u32 = 0;
    let mut fired: Option<String> = None;
    let mut peer_failure: Option<(u32, String)> = None;
    let mut last_change = Instant::now();
    let mut last_look = Instant::now();
    let mut last_states: Vec<u32> = Vec::new();
    let mut idle = 0u32;
    let mut kernel_done = false;
    let mask = state.ring_len - 1;
    let ring = state.ring.host_ptr() as *const Command;
    loop {
        // Drain the ring: entries arrive in position order.
        let mut progressed = false;
        loop {
            // SAFETY: in the ring; `seq` is published last with a release.
            let e = unsafe { ring.add((pos & mask) as usize) };
            let seq = unsafe {
                AtomicU32::from_ptr(&raw const (*e).seq as *mut u32).load(Ordering::Acquire)
            };
            if seq != pos.wrapping_add(1) {
                break;
            }
            // SAFETY: the entry is complete.
            let cmd = unsafe { e.read_volatile() };
            handle(state, world, &cmd, &mut p)?;
            pos = pos.wrapping_add(1);
            state.ring_consumed.store_release(0, pos);
            progressed = true;
        }
        if let Some(w) = world {
            if w.poll_syncs(&mut p.syncs)? {
                if kernel_done {
                    break; // The last sync: every process has ended its kernel.
                }
                reply(state, &mut p.replies, 0, 0);
                progressed = true;
            }
            if peer_failure.is_none() {
                if let Some(f) = w.failure() {
                    state.abort_run()?;
                    peer_failure = Some(f);
                }
            }
        }
        if progressed {
            last_change = Instant::now();
            idle = 0;
        }
        // Asking the driver whether the kernel ended costs about a
        // microsecond: only do it when the ring has been quiet a while, so
        // that commands are answered at once.
        if !kernel_done && idle % 1024 == 1023 && launch.is_finished()? {
            if progressed {
                continue; // Drain what the last ranks sent.
            }
            kernel_done = true;
            match world {
                // Wait for every process to end its kernel, so that traffic
                // to this one is delivered while its memory still exists.
                Some(w) if peer_failure.is_none() && fired.is_none() => {
                    w.start_sync(&mut p.syncs, None)?
                }
                _ => break,
            }
        }
        if kernel_done && peer_failure.is_some() {
            break;
        }
        if last_look.elapsed() >= Duration::from_millis(20) {
            last_look = Instant::now();
            let states: Vec<u32> = (0..state.ranks).map(|r| state.status(r).state).collect();
            if states != last_states {
                last_states = states;
                last_change = Instant::now();
            } else if let Some(limit) = watchdog {
                let stuck = last_states.iter().all(|&s| s != 0)
                    && last_states.iter().any(|&s| s != STATUS_FINISHED);
                if stuck && fired.is_none() && last_change.elapsed() >= limit {
                    let mut text = format!(
                        "dcuda watchdog: no progress for {:.1} s and every unfinished rank is waiting:",
                        last_change.elapsed().as_secs_f64()
                    );
                    for r in 0..state.ranks {
                        let s = state.status(r);
                        if s.state != STATUS_FINISHED {
                            text.push('\n');
                            text.push_str(&describe_wait(r, &s));
                        }
                    }
                    eprintln!("{text}");
                    fired = Some(text);
                    state.abort_run()?;
                }
            }
        }
        // Spin while work is likely, then yield the core.
        idle = idle.wrapping_add(1);
        if idle > 100_000 {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
    let mut report = p.report;
    report.elapsed = started.elapsed();
    let kernel = launch.kernel().to_string();
    launch.wait()?;
    let mut record = ErrorRecord::default();
    let raw = state.error.download()?;
    // SAFETY: the buffer holds one ErrorRecord.
    unsafe {
        std::ptr::copy_nonoverlapping(
            raw.as_ptr(),
            &mut record as *mut ErrorRecord as *mut u8,
            raw.len(),
        )
    };
    if let Some((process, message)) = peer_failure {
        if world.is_some_and(|w| w.me() != process) {
            return Err(Error::PeerFailed {
                kernel,
                process,
                message,
            });
        }
    }
    if record.call != 0 {
        let call = Call::from_u32(record.call - 1)
            .map(Call::name)
            .unwrap_or("unknown call");
        let mut message = record.describe();
        if let Some(w) = world {
            message = format!(
                "process {}, {message} (world rank {})",
                w.me(),
                w.first() + record.rank
            );
        }
        return Err(Error::RankCall {
            kernel,
            rank: record.rank,
            call,
            message,
        });
    }
    if let Some(text) = fired {
        return Err(Error::Watchdog {
            kernel,
            report: text,
        });
    }
    Ok(report)
}

/// Answers device rank `rank`'s host call with `value`.
fn reply(state: &RunState, replies: &mut [u32], rank: u32, value: u32) {
    let r = rank as usize;
    replies[r] = replies[r].wrapping_add(1);
    // SAFETY: in bounds; the value is written before the release of `seq`.
    unsafe {
        let slot = (state.replies.host_ptr() as *mut Reply).add(r);
        (&raw mut (*slot).value).write_volatile(value);
        AtomicU32::from_ptr(&raw mut (*slot).seq).store(replies[r], Ordering::Release);
    }
}

fn handle(state: &RunState, world: Option<&World>, cmd: &Command, p: &mut Progress) -> Result<()> {
    let op = Op::from_u32(cmd.op);
    if let Some(Op::Put | Op::PutInline | Op::Get | Op::Notify | Op::Barrier | Op::WindowExchange) =
        op
    {
        let Some(w) = world else {
            eprintln!(
                "dcuda: rank {} asked for {:?} in a run of one process",
                cmd.rank, op
            );
            return Ok(());
        };
        // SAFETY: the payload holds a `Transfer` for these ops.
        let t: Transfer = unsafe { (cmd.payload.as_ptr() as *const Transfer).read_unaligned() };
        return match op {
            Some(Op::Put | Op::Notify) => w.put(cmd.rank, &t, cmd.arg, false),
            Some(Op::PutInline) => w.put(cmd.rank, &t, cmd.arg, true),
            Some(Op::Get) => w.get(cmd.rank, &t, cmd.arg),
            Some(Op::Barrier) => w.start_sync(&mut p.syncs, None),
            _ => w.start_sync(&mut p.syncs, Some(cmd.arg)),
        };
    }
    let report = &mut p.report;
    match op {
        Some(Op::Ping) => {
            report.host_calls += 1;
            reply(state, &mut p.replies, cmd.rank, report.host_calls as u32);
        }
        Some(Op::Log) => {
            let (format, _) = p.partial.entry(cmd.rank).or_default();
            format.extend_from_slice(&cmd.payload[..(cmd.len as usize).min(cmd.payload.len())]);
        }
        Some(Op::LogArg) => {
            let (_, args) = p.partial.entry(cmd.rank).or_default();
            let bits = u64::from_le_bytes(cmd.payload[..8].try_into().expect("8 bytes"));
            args.push(LogArg::decode(cmd.arg, bits).unwrap_or(LogArg::Unsigned(bits)));
        }
        Some(Op::LogEnd) => {
            let (format, args) = p.partial.remove(&cmd.rank).unwrap_or_default();
            let text = format_log(&String::from_utf8_lossy(&format), &args);
            let who = match world {
                Some(w) => w.first() + cmd.rank,
                None => cmd.rank,
            };
            println!("[rank {who}] {text}");
            report.logs.push((cmd.rank, text));
        }
        Some(Op::TimerStart) => {
            p.timers.insert(cmd.arg, Instant::now());
        }
        Some(Op::TimerStop) => {
            if let Some(t0) = p.timers.remove(&cmd.arg) {
                report.timers.push(TimerRecord {
                    id: cmd.arg,
                    elapsed: t0.elapsed(),
                });
            }
        }
        _ => eprintln!("dcuda: rank {} sent unknown command {}", cmd.rank, cmd.op),
    }
    Ok(())
}
