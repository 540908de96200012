//! The emulator's threads of a rank: one coroutine per GPU thread, all on
//! the rank's OS thread, run in lockstep from one block-collective point to
//! the next (a barrier, a warp shuffle, a call of the rank API).
//!
//! Uniform code runs on every thread, as on the GPU. So a per-thread value
//! that steers uniform code shows up as threads that reach different points,
//! or the same call with different arguments, and the scheduler, which sees
//! every thread at every point, stops the rank with a report naming the
//! threads, the calls and where they were made, instead of computing on.
//! A thread that exits while the others go on is reported the same way.

use super::block::Shuffle;
use super::emu;
use super::std::{self, format, string::String, vec::Vec};
use core::cell::Cell;
use core::panic::Location;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// Stack of one emulated thread: rank bodies in debug builds use deep
/// frames. Reserved address space, touched only as far as it is used.
const LANE_STACK: usize = 1024 * 1024;

/// Where a thread stands when it stops for the others.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum Point {
    /// A block barrier.
    Barrier,
    /// A warp shuffle.
    Shuffle(Shuffle),
    /// A call of the rank API, with the arguments that must be uniform.
    Call(&'static str, Args),
}

/// Named arguments of a call (unused places have an empty name).
type Args = [(&'static str, u64); MAX_ARGS];
const MAX_ARGS: usize = 5;

/// A call of the rank API and where the user made it.
type Site = (&'static str, &'static Location<'static>);

/// What one thread brings to a point.
#[derive(Clone, Copy)]
pub(crate) struct Arrival {
    point: Point,
    /// The API call it is in (for points inside the library).
    site: Option<Site>,
    /// Its word, for a shuffle.
    word: u64,
}

impl Arrival {
    /// Equal for every thread of a rank that has not diverged.
    fn key(&self) -> (Point, Option<(&'static str, u32, u32, &'static str)>) {
        let site = self.site.map(|(c, l)| (c, l.line(), l.column(), l.file()));
        (self.point, site)
    }

    fn describe(&self) -> String {
        let at = |(call, loc): Site| format!("`{call}` called at {loc}");
        match (self.point, self.site) {
            (Point::Call(name, args), site) => {
                let place = site.map(|(_, l)| format!(" at {l}")).unwrap_or_default();
                let named: Vec<String> = args
                    .iter()
                    .filter(|(n, _)| !n.is_empty())
                    .map(|(n, v)| format!("{n} {v}"))
                    .collect();
                format!("reached `{name}({})`{place}", named.join(", "))
            }
            (Point::Barrier, Some(s)) => format!("reached a block barrier in {}", at(s)),
            (Point::Shuffle(m), Some(s)) => format!("reached a warp shuffle ({m:?}) in {}", at(s)),
            (Point::Barrier, None) => "reached a block barrier".into(),
            (Point::Shuffle(m), None) => format!("reached a warp shuffle ({m:?})"),
        }
    }
}

/// How a thread's run ended.
enum Ended {
    Returned,
    Exited(&'static Location<'static>),
}

/// The panic payload of [`exit`]: the thread leaves the rank kernel.
struct ThreadExit(&'static Location<'static>);

/// The running thread of a rank: its index and its way back to the
/// scheduler.
#[derive(Clone, Copy)]
struct Lane {
    index: u32,
    yielder: *const Yielder<u64, Arrival>,
    site: Option<Site>,
}

std::thread_local! {
    static LANE: Cell<Option<Lane>> = const { Cell::new(None) };
}

/// The calling thread's index, when it is a thread of an emulated rank.
pub(crate) fn index() -> Option<u32> {
    LANE.with(|l| l.get().map(|l| l.index))
}

/// Stops at `point` until every thread of the rank has reached its next
/// point, and returns what the scheduler hands back (a shuffle's word).
fn arrive(point: Point, word: u64) -> u64 {
    let Some(lane) = LANE.with(|l| l.get()) else {
        return word; // Not in a rank: a single thread has no one to meet.
    };
    let region = emu::current_thread();
    let arrival = Arrival {
        point,
        site: lane.site,
        word,
    };
    // SAFETY: the yielder lives on this coroutine's stack while it runs.
    let back = unsafe { (*lane.yielder).suspend(arrival) };
    // Other threads ran meanwhile: this one is current again.
    LANE.with(|l| l.set(Some(lane)));
    emu::set_thread(region);
    back
}

/// A block barrier.
pub(crate) fn barrier() {
    arrive(Point::Barrier, 0);
}

/// A warp shuffle of `word`.
pub(crate) fn shuffle(word: u64, mode: Shuffle) -> u64 {
    arrive(Point::Shuffle(mode), word)
}

/// Entry of rank API call `name`, made at `loc`, with the arguments that
/// must be the same on every thread.
pub(crate) fn call(
    name: &'static str,
    given: &[(&'static str, u64)],
    loc: &'static Location<'static>,
) {
    let Some(mut lane) = LANE.with(|l| l.get()) else {
        return;
    };
    let mut args: Args = [("", 0); MAX_ARGS];
    args[..given.len()].copy_from_slice(given);
    lane.site = Some((name, loc));
    LANE.with(|l| l.set(Some(lane)));
    arrive(Point::Call(name, args), 0);
}

/// Ends the calling thread.
pub(crate) fn exit(loc: &'static Location<'static>) -> ! {
    std::panic::panic_any(ThreadExit(loc))
}

/// Runs `body` as each of the `threads` threads of a rank, in lockstep,
/// checking at every point that all threads agree.
pub(crate) fn run(threads: u32, body: &dyn Fn()) {
    let mut lanes: Vec<Coroutine<u64, Arrival, Ended>> = Vec::with_capacity(threads as usize);
    for index in 0..threads {
        let stack = DefaultStack::new(LANE_STACK)
            .unwrap_or_else(|e| panic!("the emulator could not map a thread's stack: {e}"));
        let start = move |yielder: &Yielder<u64, Arrival>, _: u64| {
            let lane = Lane {
                index,
                yielder: yielder as *const _,
                site: None,
            };
            LANE.with(|l| l.set(Some(lane)));
            emu::set_thread(None);
            match catch_unwind(AssertUnwindSafe(body)) {
                Ok(()) => Ended::Returned,
                Err(p) => match p.downcast::<ThreadExit>() {
                    Ok(exit) => Ended::Exited(exit.0),
                    Err(p) => resume_unwind(p),
                },
            }
        };
        // SAFETY: `body` outlives every coroutine: each is driven to its
        // end or dropped (unwound) before this function returns.
        lanes.push(unsafe { Coroutine::with_stack_unchecked(stack, start) });
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| schedule(&mut lanes)));
    // Unwind the threads still suspended before reporting anything, so that
    // no second panic starts while one is under way.
    drop(lanes);
    LANE.with(|l| l.set(None));
    emu::set_thread(None);
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(report)) => panic!("{report}"),
        Err(payload) => resume_unwind(payload),
    }
}

/// Drives the threads from point to point until all have ended; a
/// disagreement is returned as the report.
fn schedule(lanes: &mut [Coroutine<u64, Arrival, Ended>]) -> Result<(), String> {
    let n = lanes.len();
    let mut input = std::vec![0u64; n];
    let mut arrivals: Vec<Option<Arrival>> = std::vec![None; n];
    let mut ended: Vec<Option<Ended>> = (0..n).map(|_| None).collect();
    loop {
        for (i, lane) in lanes.iter_mut().enumerate() {
            if ended[i].is_some() {
                continue;
            }
            emu::set_thread(None);
            match lane.resume(input[i]) {
                CoroutineResult::Yield(a) => arrivals[i] = Some(a),
                CoroutineResult::Return(e) => {
                    arrivals[i] = None;
                    ended[i] = Some(e);
                }
            }
        }
        let finished = ended.iter().filter(|e| e.is_some()).count();
        if finished == n {
            return exits(&ended);
        }
        if finished > 0 {
            return Err(report(&arrivals, &ended));
        }
        let first = arrivals[0].expect("a running thread arrived").key();
        if arrivals.iter().any(|a| a.is_some_and(|a| a.key() != first)) {
            return Err(report(&arrivals, &ended));
        }
        if let Some(Arrival {
            point: Point::Shuffle(mode),
            ..
        }) = arrivals[0]
        {
            for (i, slot) in input.iter_mut().enumerate() {
                *slot = arrivals[partner(i, mode)].map_or(0, |a| a.word);
            }
        }
    }
}

/// The thread whose word thread `i` receives in a shuffle.
fn partner(i: usize, mode: Shuffle) -> usize {
    let (lane, base) = (i % 32, i - i % 32);
    let from = match mode {
        Shuffle::Xor(m) => lane ^ m as usize,
        Shuffle::Up(d) if lane >= d as usize => lane - d as usize,
        Shuffle::Up(_) => lane,
        Shuffle::Index(l) => l as usize,
    };
    base + from % 32
}

/// Every thread ended: fine if all returned, reported if any exited.
fn exits(ended: &[Option<Ended>]) -> Result<(), String> {
    if ended.iter().all(|e| matches!(e, Some(Ended::Returned))) {
        return Ok(());
    }
    Err(format!(
        "threads of a rank kernel exited with `exit_thread`: {}. A rank must return from its kernel \
         on every thread: the runtime ends the rank there, and its peers wait for that end",
        groups(ended.len(), |i| describe_end(&ended[i]))
    ))
}

fn describe_end(e: &Option<Ended>) -> String {
    match e {
        Some(Ended::Returned) => "returned from the kernel".into(),
        Some(Ended::Exited(loc)) => format!("exited at {loc}"),
        None => "went on".into(),
    }
}

/// The report of threads that disagree.
fn report(arrivals: &[Option<Arrival>], ended: &[Option<Ended>]) -> String {
    let what = |i: usize| match (&arrivals[i], &ended[i]) {
        (Some(a), _) => a.describe(),
        (None, e) => describe_end(e),
    };
    format!(
        "the threads of this rank diverged: {}. Every thread of a rank must reach the same \
         block-collective calls in the same order with the same arguments: a per-thread value \
         (a thread index, a clock, an atomic, memory written by one thread) steered uniform code; \
         see the book's chapter on rank kernels",
        groups(arrivals.len(), what)
    )
}

/// Threads grouped by what `what` says of them, as ranges:
/// "threads 0-15 A; thread 16 B".
fn groups(n: usize, what: impl Fn(usize) -> String) -> String {
    let mut seen: Vec<(String, Vec<(usize, usize)>)> = Vec::new();
    for i in 0..n {
        let text = what(i);
        let group = match seen.iter_mut().position(|(t, _)| *t == text) {
            Some(g) => &mut seen[g].1,
            None => {
                seen.push((text, Vec::new()));
                &mut seen.last_mut().expect("just pushed").1
            }
        };
        match group.last_mut() {
            Some((_, end)) if *end + 1 == i => *end = i,
            _ => group.push((i, i)),
        }
    }
    let parts: Vec<String> = seen
        .into_iter()
        .map(|(text, ranges)| {
            let single = ranges.len() == 1 && ranges[0].0 == ranges[0].1;
            let list: Vec<String> = ranges
                .iter()
                .map(|&(a, b)| {
                    if a == b {
                        format!("{a}")
                    } else {
                        format!("{a}-{b}")
                    }
                })
                .collect();
            let noun = if single { "thread" } else { "threads" };
            format!("{noun} {} {text}", list.join(", "))
        })
        .collect();
    parts.join("; ")
}
