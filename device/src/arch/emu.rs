//! Per-thread context of the CPU emulator.
//!
//! The `dcuda` host crate's emulator backend runs each emulated CUDA thread
//! as an OS thread and installs a [`ThreadContext`] with [`enter`]; the
//! intrinsics of [`crate::arch`] read it. Outside a launch they panic with a
//! message that names the call.

use super::std;
use super::Dim3;
use std::boxed::Box;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// State shared by all emulated threads of one launch.
#[derive(Default)]
pub struct LaunchContext {
    aborted: AtomicBool,
}

/// A panic payload: this thread stopped because another one failed.
#[derive(Debug)]
pub struct Aborted;

impl LaunchContext {
    /// A new launch context.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Marks the launch as failed: threads blocked in a barrier or poll loop stop.
    pub fn abort(&self) {
        self.aborted.store(true, Ordering::SeqCst);
    }

    /// Whether [`abort`](Self::abort) was called.
    pub fn is_aborted(&self) -> bool {
        self.aborted.load(Ordering::SeqCst)
    }
}

/// State shared by the emulated threads of one block: its barrier and its
/// shared memory.
pub struct BlockContext {
    threads: usize,
    barrier: Mutex<BarrierState>,
    wake: Condvar,
    shared: Mutex<HashMap<&'static str, SharedAllocation>>,
}

#[derive(Default)]
struct BarrierState {
    arrived: usize,
    generation: u64,
}

struct SharedAllocation(Box<[u128]>);

impl BlockContext {
    /// A block of `threads` emulated threads.
    pub fn new(threads: usize) -> Arc<Self> {
        Arc::new(BlockContext {
            threads,
            barrier: Mutex::new(BarrierState::default()),
            wake: Condvar::new(),
            shared: Mutex::new(HashMap::new()),
        })
    }

    fn wait(&self, launch: &LaunchContext) {
        let mut state = self.barrier.lock().unwrap_or_else(|e| e.into_inner());
        state.arrived += 1;
        if state.arrived == self.threads {
            state.arrived = 0;
            state.generation += 1;
            self.wake.notify_all();
            return;
        }
        let generation = state.generation;
        while state.generation == generation {
            if launch.is_aborted() {
                std::panic::panic_any(Aborted);
            }
            let (next, _) = self
                .wake
                .wait_timeout(state, std::time::Duration::from_millis(10))
                .unwrap_or_else(|e| e.into_inner());
            state = next;
        }
    }

    fn shared_base(&self, symbol: &'static str, bytes: usize) -> *mut u8 {
        let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        let allocation = shared.entry(symbol).or_insert_with(|| {
            let words = bytes.div_ceil(16).max(1);
            // A GPU block's shared memory starts with whatever was there:
            // a pattern, not zeros, so that a read before the first write
            // shows up here too.
            SharedAllocation(std::vec![UNWRITTEN_SHARED; words].into_boxed_slice())
        });
        allocation.0.as_mut_ptr() as *mut u8
    }
}

/// What shared memory holds before a block writes it.
const UNWRITTEN_SHARED: u128 = u128::from_ne_bytes([0xA5; 16]);

/// What an emulated thread knows about itself.
///
/// A raw kernel's OS thread is one GPU thread: `thread_idx` is set. A rank
/// kernel's OS thread is a whole block, whose threads are coroutines
/// (`lanes`): `thread_idx` is `None` in uniform code and set while a
/// per-thread region runs.
#[derive(Clone)]
pub struct ThreadContext {
    /// `%tid`, or `None` in uniform code of a rank kernel.
    pub thread_idx: Option<Dim3>,
    /// `%ctaid`.
    pub block_idx: Dim3,
    /// `%ntid`.
    pub block_dim: Dim3,
    /// `%nctaid`.
    pub grid_dim: Dim3,
    /// The thread's block.
    pub block: Arc<BlockContext>,
    /// The thread's launch.
    pub launch: Arc<LaunchContext>,
}

std::thread_local! {
    static CURRENT: RefCell<Option<ThreadContext>> = const { RefCell::new(None) };
}

/// Runs `f` as the emulated thread `ctx`.
pub fn enter<R>(ctx: ThreadContext, f: impl FnOnce() -> R) -> R {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            CURRENT.with(|c| c.borrow_mut().take());
        }
    }
    CURRENT.with(|c| *c.borrow_mut() = Some(ctx));
    let _leave = Leave;
    f()
}

/// The current thread of a rank's per-thread region (`None`: uniform code).
pub fn current_thread() -> Option<Dim3> {
    CURRENT.with(|c| c.borrow().as_ref().and_then(|t| t.thread_idx))
}

/// Sets the current thread of a rank's per-thread region (`None`: uniform code).
pub fn set_thread(thread: Option<Dim3>) {
    CURRENT.with(|c| {
        if let Some(ctx) = c.borrow_mut().as_mut() {
            ctx.thread_idx = thread;
        }
    })
}

/// The index of the current emulated thread; panics in uniform code of a
/// rank kernel, where no single thread is running.
pub fn thread_idx(call: &str) -> Dim3 {
    with_thread(call, |t| t.thread_idx).unwrap_or_else(|| {
        panic!(
            "dcuda: `{call}` called in uniform code of a rank kernel: it is per-thread; \
             call it inside `rank.threads(|t| ...)` (the thread index is `t.index()`)"
        )
    })
}

/// Panics if the calling code is uniform code of a rank kernel: there the
/// GPU would run a non-idempotent per-thread operation once per thread.
pub fn require_thread(call: &str) {
    if in_uniform_code() {
        thread_idx(call);
    }
}

/// Panics if the calling code is uniform code of a rank kernel, saying
/// which uniform call to use instead: each thread would read its own clock
/// and leave a time-out loop in its own iteration.
pub fn require_thread_or(call: &str, fix: &str) {
    if in_uniform_code() {
        panic!("dcuda: `{call}` called in uniform code of a rank kernel: each thread would read its own value; {fix}")
    }
}

fn in_uniform_code() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(|t| t.thread_idx.is_none()))
}

/// Calls `f` with the current thread's context; panics outside a launch.
pub fn with_thread<R>(call: &str, f: impl FnOnce(&ThreadContext) -> R) -> R {
    CURRENT.with(|c| match c.borrow().as_ref() {
        Some(ctx) => f(ctx),
        None => panic!("dcuda: `{call}` called outside a kernel launch"),
    })
}

pub(crate) fn sync_threads() {
    thread_idx("sync_threads");
    let (block, launch) = with_thread("sync_threads", |t| (t.block.clone(), t.launch.clone()));
    block.wait(&launch);
}

/// Unwinds this thread if its launch was aborted; called from poll points.
pub(crate) fn check_abort() {
    let aborted = CURRENT.with(|c| c.borrow().as_ref().is_some_and(|t| t.launch.is_aborted()));
    if aborted {
        std::panic::panic_any(Aborted);
    }
}

/// Whether `ptr` lies in the current block's shared memory (false outside
/// a block).
pub(crate) fn is_shared(ptr: *const u8) -> bool {
    CURRENT.with(|c| {
        c.borrow().as_ref().is_some_and(|t| {
            let shared = t.block.shared.lock().unwrap_or_else(|e| e.into_inner());
            shared.values().any(|a| {
                let start = a.0.as_ptr() as usize;
                let end = start + a.0.len() * core::mem::size_of::<u128>();
                (start..end).contains(&(ptr as usize))
            })
        })
    })
}

/// Base address of shared-memory symbol `symbol` in the current block.
pub(crate) fn shared_base(symbol: &'static str, bytes: usize) -> *mut u8 {
    let block = with_thread("shared memory access", |t| t.block.clone());
    block.shared_base(symbol, bytes)
}
