//! Two-sided messages: `send`, `recv`, `probe` and `iprobe`, matched by
//! communicator, source and tag (with wildcards), in MPI's order.
//!
//! On one device a message of at most [`EAGER`] bytes goes into the
//! receiver's message log if it has room, and `send` returns at once.
//! Otherwise (a longer message, or a full log) the sender fills its own
//! envelope, pushes it to the receiver's list and waits until the receiver
//! has copied the message, from the envelope or straight from the
//! sender's buffer (rendezvous): a sender never waits for room, so every
//! program that is correct with MPI's synchronous sends runs. To a rank of
//! a mapped GPU the sender writes the message into the receiver's peer log
//! ([`message_peer`](super::message_peer)). Otherwise, to another process,
//! the host reads the message and sends it to the receiver's host,
//! which writes it into the receiver's inbox (`message_logs` says how a
//! receive finds it), and holds a long payload until the receiver fetches
//! it.
use super::comm::Comm;
use super::matching::Source;
use super::message_logs::{self as logs, Found, Log};
use super::message_peer_send::sent_through_hosts;
use super::message_send::{give_back, take, Header};
use super::message_small::{self as small, SMALL};
use super::route::Place;
use super::Runtime;
use crate::abi::{Call, Fault, Op, RankContext, Route, Transfer, EAGER};
use crate::arch;
use crate::block::Block;
use crate::memory::{DeviceCopy, DeviceSlice};

/// What a received or probed message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status {
    /// Its sender's rank in the communicator.
    pub source: u32,
    /// Its tag.
    pub tag: u32,
    /// Its payload in bytes.
    pub bytes: u64,
}

impl Status {
    /// Its payload in elements of `T` (rounded down).
    #[inline(always)]
    pub fn count<T>(&self) -> usize {
        self.bytes as usize / core::mem::size_of::<T>().max(1)
    }
}

impl Runtime {
    /// Sends `buf` to rank `dest` of `comm` with `tag`; returns once `buf`
    /// may be reused.
    #[inline(always)]
    pub fn send<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        (dest, tag): (u32, u32),
        buf: DeviceSlice<T>,
    ) {
        self.check_user_tag(block, Call::Send, tag);
        let place = self.locate(block, Call::Send, comm, dest);
        let bytes = buf.bytes();
        let header = Header {
            context: comm.context(),
            source: comm.rank(),
            tag,
            bytes: bytes as u64,
            data: buf.as_ptr() as u64,
            sender: block.id(),
        };
        // The common cases: an eager message to a rank of this device
        // after the first, inline, and a small one to a mapped GPU, out of
        // line in one piece. Every other case is out of line
        // (`send_other`): a path that jumps over inlined cold code misses
        // the instruction cache (`message_receive` says more).
        if place.route == Route::Direct && bytes <= SMALL && self.messages.used() {
            // Every thread's writes to `buf` precede the copy.
            block.sync();
            let src = (buf.as_ptr() as *const u8, bytes);
            if self.send_small_to_peer(block, place, header, src) {
                return;
            }
        }
        if place.route == Route::Local && bytes <= EAGER && self.messages.used() {
            // Every thread's writes to `buf` precede the copy.
            block.sync();
            let (ctx, src) = (self.ctx(), buf.as_ptr() as *const u8);
            if bytes <= SMALL {
                if block.single(|_| publish_small(ctx, place.dev, header, (src, bytes))) == 1 {
                    return;
                }
            } else {
                // Any u32 is a position.
                const FULL: u64 = u64::MAX;
                let pos = block.single(|_| take(ctx, place.dev).map_or(FULL, u64::from));
                if pos != FULL {
                    let pos = pos as u32;
                    let r = Log::of(ctx, place.dev, false).record(pos);
                    // SAFETY: the record is ours until published; `bytes`
                    // fit.
                    unsafe { block.copy((*r).inline.as_mut_ptr() as *mut u8, src, bytes) };
                    block.sync();
                    // SAFETY: as above.
                    let publish =
                        |_: &_| unsafe { header.publish(r, pos, (ctx, place.dev), [0, 0]) };
                    block.leader(publish);
                    return;
                }
            }
        }
        self.send_other(block, comm, (dest, tag), (place, header), buf)
    }

    /// [`send`](Self::send) for every case but an eager message on this
    /// device after the first (or one that found the log full). Out of
    /// line: inlined, even marked cold, it made the small message on one
    /// GPU 0.2–0.4 µs slower (`bench/results/2026-11-27-hot-paths/`).
    #[inline(never)]
    fn send_other<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        (dest, tag): (u32, u32),
        (place, header): (Place, Header),
        buf: DeviceSlice<T>,
    ) {
        let bytes = buf.bytes();
        let mut first = self.messages.first_use();
        if !first && place.route != Route::Local {
            // A position reserved ahead in a log of this device goes back
            // before a message elsewhere.
            let ctx = *self.ctx();
            block.leader(|_| give_back(&ctx));
        }
        if place.route == Route::Direct && self.send_to_peer(block, place, header, buf, &mut first)
        {
            return;
        }
        if place.route != Route::Local {
            if first {
                let ctx = *self.ctx();
                block.leader(|_| logs::start(&ctx, block.id()));
            }
            let transfer = Transfer {
                target: place.world,
                window: comm.context(),
                offset: comm.rank() as u64,
                local: buf.as_ptr() as u64,
                bytes: bytes as u64,
            };
            self.through_host(block, Call::Send, Op::Send, tag, transfer);
            if place.route == Route::Direct {
                block.leader(|_| sent_through_hosts());
            }
            // The host has read `buf` once it reports the send done.
            return self.wait_host_for(block, Call::Send, [tag, dest, 2]);
        }
        if bytes > EAGER && !arch::is_global(buf.as_ptr() as *const u8) {
            let values = [buf.as_ptr() as u64, dest as u64, 0, 0];
            self.fail(block, Call::Send, Fault::NotGlobal, values);
        }
        let ctx = *self.ctx();
        // What the leader tells the block: a position (any u32), or these.
        const FULL: u64 = u64::MAX;
        const SENT: u64 = u64::MAX - 1;
        let me = block.id();
        // Every thread's writes to `buf` precede the copy: the barrier of
        // `sync`, or of `single`.
        let pos = if bytes <= SMALL {
            block.sync();
            let src = buf.as_ptr() as *const u8;
            block.single(|_| {
                if first {
                    logs::start(&ctx, me);
                }
                match publish_small(&ctx, place.dev, header, (src, bytes)) {
                    1 => SENT,
                    _ => FULL,
                }
            })
        } else if bytes <= EAGER {
            block.single(|_| {
                if first {
                    logs::start(&ctx, me);
                }
                take(&ctx, place.dev).map_or(FULL, u64::from)
            })
        } else {
            block.sync();
            block.leader(|_| {
                if first {
                    logs::start(&ctx, me);
                } else {
                    give_back(&ctx);
                }
            });
            FULL
        };
        if pos == SENT {
            return;
        }
        let r = if pos == FULL {
            ctx.envelope(block.id())
        } else {
            Log::of(&ctx, place.dev, false).record(pos as u32)
        };
        if bytes <= EAGER {
            // SAFETY: the record is ours until published; `bytes` fit.
            unsafe {
                block.copy(
                    (*r).inline.as_mut_ptr() as *mut u8,
                    buf.as_ptr() as _,
                    bytes,
                )
            };
            block.sync();
        }
        block.leader(|_| {
            // SAFETY: the record is ours until published.
            unsafe {
                if pos == FULL {
                    header.push(r, (&ctx, place.dev))
                } else {
                    header.publish(r, pos as u32, (&ctx, place.dev), [0, 0])
                }
            }
        });
        if pos == FULL {
            let src = (buf.as_ptr() as *const u8, bytes);
            self.wait_send_done(block, (place.dev, src), [tag, dest, 1]);
        }
    }

    /// Receives the oldest message on `comm` from `source` with `tag`
    /// (`None`: any) into `buf`.
    #[inline(always)]
    pub fn recv<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        from: (Source, Option<u32>),
        buf: DeviceSlice<T>,
    ) -> Status {
        let w = self.wanted(block, Call::Recv, comm, from);
        let (ctx, id) = (*self.ctx(), block.id());
        self.tests.waiting();
        // The leader's search loads the length with the header, and the
        // broadcast carries it: the threads start copying at once.
        let mut setup = self.messages.first_use();
        let (dst, room) = (buf.as_mut_ptr() as *mut u8, buf.bytes() as u64);
        let size = core::mem::size_of::<T>() as u64;
        let packed = self.wait_until_word(block, Call::Recv, w.args(), || {
            if core::mem::take(&mut setup) {
                logs::start(&ctx, id);
            }
            logs::find(&ctx, id, &w, true).map(|f| {
                // A small payload that fits goes from the leader's
                // registers into `buf` before the broadcast, whose barrier
                // shows it to every thread (one barrier less). One that
                // does not fit is refused below, untouched.
                let fits = f.bytes <= room && (size == 0 || f.bytes % size == 0);
                if f.bytes <= SMALL as u64 && fits {
                    // SAFETY: `buf` holds `f.bytes` bytes.
                    unsafe { small::store(dst, f.bytes as usize, f.small) };
                }
                f.packed()
            })
        });
        let (found, known) = Found::unpack(packed);
        self.take_found(block, (comm, &w), (found, known), (dst, room, size))
    }
}

/// Publishes a message of at most [`SMALL`] bytes at `src` in device rank
/// `dev`'s log (leader thread): 1, or 0 while the log is full.
#[inline(always)]
fn publish_small(
    ctx: &RankContext,
    dev: u32,
    header: Header,
    (src, bytes): (*const u8, usize),
) -> u32 {
    // SAFETY: the caller's buffer holds `bytes` bytes; loaded before the
    // reservation, so that they travel together.
    let words = unsafe { small::load(src, bytes) };
    let Some(pos) = take(ctx, dev) else {
        return 0;
    };
    let r = Log::of(ctx, dev, false).record(pos);
    // SAFETY: the record is ours until published.
    unsafe { header.publish(r, pos, (ctx, dev), words) };
    1
}
