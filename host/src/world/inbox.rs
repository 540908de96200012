//! The inboxes of this process's ranks: two-sided messages from ranks of
//! other processes. The receive thread queues each message for its rank,
//! numbered in arrival order, and writes it into the rank's inbox
//! (host-mapped records the rank reads) as soon as the rank has room, so
//! nothing is lost when a rank receives slowly. While the inbox is full a
//! rank waiting in a receive posts what it wants, and the first queued
//! message it accepts goes out of turn through the rank's express slot;
//! the arrival numbers keep the order. A payload longer than [`EAGER`]
//! bytes stays here until the rank fetches it into its receive buffer; one
//! from a mapped GPU stays there, and is copied from it then.

use dcuda_device::abi::{MessageRecord, Want, EAGER, MSG_LOG};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU32, Ordering};

/// A message waiting for room in its rank's inbox.
pub(super) struct Letter {
    pub context: u32,
    pub source: u32,
    pub tag: u32,
    pub data: Payload,
}

/// A message's payload: its bytes, or where it waits in the sender's GPU
/// memory, which this process maps.
pub(crate) enum Payload {
    Bytes(Vec<u8>),
    Mapped(MappedPayload),
}

/// A payload left in a mapped GPU's memory (see `Message::SendMapped`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MappedPayload {
    /// The sending process, and its device rank waiting for `Taken`.
    pub process: u32,
    pub rank: u32,
    /// The allocation's IPC handle, and the payload's offset and length.
    pub handle: [u8; 64],
    pub offset: u64,
    pub bytes: u64,
}

impl Payload {
    fn len(&self) -> usize {
        match self {
            Payload::Bytes(b) => b.len(),
            Payload::Mapped(m) => m.bytes as usize,
        }
    }
}

/// Host addresses of the ranks' inbox memory (mapped, for the run).
#[derive(Clone, Copy)]
pub(crate) struct InboxMemory {
    /// `[ranks][MSG_LOG + 1]` records: the inbox, then the express slot.
    pub records: usize,
    /// `[4][ranks]`: inbox published and retired, express published and
    /// retired.
    pub counters: usize,
    /// `[ranks]` wants.
    pub wants: usize,
}

/// Every rank's queue, inbox and held payloads.
pub(crate) struct Inbox {
    memory: InboxMemory,
    ranks: u32,
    queued: Vec<VecDeque<(u32, Letter)>>,
    waiting: usize,
    arrivals: Vec<u32>,
    published: Vec<u32>,
    express: Vec<u32>,
    held: HashMap<(u32, u64), Payload>,
    next: u64,
}

impl Inbox {
    /// The inboxes of `ranks` ranks in `memory`.
    pub fn new(memory: InboxMemory, ranks: u32) -> Inbox {
        let n = ranks as usize;
        Inbox {
            memory,
            ranks,
            queued: (0..n).map(|_| VecDeque::new()).collect(),
            waiting: 0,
            arrivals: vec![0; n],
            published: vec![0; n],
            express: vec![0; n],
            held: HashMap::new(),
            next: 0,
        }
    }

    /// Counter `which` (0..4, see [`InboxMemory::counters`]) of `dev`.
    fn counter(&self, which: u32, dev: u32) -> &AtomicU32 {
        let i = (which * self.ranks + dev) as usize;
        // SAFETY: `[4][ranks]` counters for the run; `dev < ranks`.
        unsafe { AtomicU32::from_ptr((self.memory.counters as *mut u32).add(i)) }
    }

    fn slot(&self, dev: u32, i: usize) -> *mut MessageRecord {
        // SAFETY (of the arithmetic): `dev < ranks`, `i <= MSG_LOG`.
        unsafe { (self.memory.records as *mut MessageRecord).add(dev as usize * (MSG_LOG + 1) + i) }
    }

    /// Queues a message for device rank `dev` (checked by the caller) and
    /// publishes what fits.
    pub fn push(&mut self, dev: u32, letter: Letter) {
        let arrival = &mut self.arrivals[dev as usize];
        self.queued[dev as usize].push_back((*arrival, letter));
        *arrival = arrival.wrapping_add(1);
        self.waiting += 1;
        self.publish(dev);
    }

    /// Publishes queued messages wherever their ranks made room or want one.
    pub fn publish_all(&mut self) {
        if self.waiting == 0 {
            return;
        }
        for dev in 0..self.ranks {
            if !self.queued[dev as usize].is_empty() {
                self.publish(dev);
            }
        }
    }

    /// Writes `letter` into `slot` as record `seq` (its sequence number + 1).
    fn write(
        &mut self,
        dev: u32,
        slot: *mut MessageRecord,
        seq: u32,
        (arrival, letter): (u32, Letter),
    ) {
        let mut r = MessageRecord {
            seq: 0,
            context: letter.context,
            source: letter.source,
            tag: letter.tag,
            bytes: letter.data.len() as u64,
            data: 0,
            sender: u32::MAX,
            consumed: 0,
            arrival,
            span: 1,
            next: 0,
            stamped: [0; 8],
            inline: [0; EAGER / 8],
        };
        let small = match &letter.data {
            Payload::Bytes(b) if b.len() <= EAGER => Some(b),
            _ => None,
        };
        if let Some(b) = small {
            bytemuck::cast_slice_mut::<u64, u8>(&mut r.inline)[..b.len()].copy_from_slice(b);
        } else {
            r.data = self.next;
            self.held.insert((dev, self.next), letter.data);
            self.next += 1;
        }
        // SAFETY: a slot the rank has retired (or never used): it reads it
        // only once its sequence number (or counter) is released after this.
        unsafe {
            slot.write_volatile(r);
            AtomicU32::from_ptr(&raw mut (*slot).seq).store(seq, Ordering::Release);
        }
    }

    fn publish(&mut self, dev: u32) {
        let d = dev as usize;
        self.serve_want(dev);
        let retired = self.counter(1, dev).load(Ordering::Acquire);
        while self.published[d].wrapping_sub(retired) < MSG_LOG as u32 {
            let Some(letter) = self.queued[d].pop_front() else {
                break;
            };
            self.waiting -= 1;
            let pos = self.published[d];
            self.write(dev, self.slot(dev, pos as usize % MSG_LOG), pos + 1, letter);
            self.published[d] = pos.wrapping_add(1);
            self.counter(0, dev)
                .store(self.published[d], Ordering::Release);
        }
    }

    /// Delivers the first queued message that `dev`'s posted want accepts
    /// through its express slot, if the slot is free.
    fn serve_want(&mut self, dev: u32) {
        let d = dev as usize;
        if self.express[d] != self.counter(3, dev).load(Ordering::Acquire) {
            return;
        }
        // SAFETY: the rank's want, for the run; `active` is released last.
        let want = unsafe {
            let at = (self.memory.wants as *mut Want).add(d);
            if AtomicU32::from_ptr(&raw mut (*at).active).load(Ordering::Acquire) == 0 {
                return;
            }
            at.read_volatile()
        };
        let any = |w: u32, v: u32| w == u32::MAX || w == v;
        let Some(i) = self.queued[d].iter().position(|(_, l)| {
            l.context == want.context && any(want.source, l.source) && any(want.tag, l.tag)
        }) else {
            return;
        };
        let Some(letter) = self.queued[d].remove(i) else {
            return;
        };
        self.waiting -= 1;
        tracing::debug!(target: "dcuda::messages", rank = dev, "inbox full: message {} delivered out of turn", letter.0);
        self.write(dev, self.slot(dev, MSG_LOG), 1, letter);
        self.express[d] = self.express[d].wrapping_add(1);
        self.counter(2, dev)
            .store(self.express[d], Ordering::Release);
    }

    /// The payload held as number `id` for device rank `dev`, given up.
    pub fn take(&mut self, dev: u32, id: u64) -> Option<Payload> {
        self.held.remove(&(dev, id))
    }

    /// Messages that arrived and were not received (at the end of a run).
    pub fn unreceived(&self) -> usize {
        let mut n = self.waiting;
        for dev in 0..self.ranks {
            let mut pos = self.counter(1, dev).load(Ordering::Acquire);
            while pos != self.published[dev as usize] {
                let at = self.slot(dev, pos as usize % MSG_LOG);
                // SAFETY: a published record of the run's inbox; the ranks
                // have finished.
                n += (unsafe { at.read_volatile() }.consumed == 0) as usize;
                pos = pos.wrapping_add(1);
            }
            n += (self.express[dev as usize] != self.counter(3, dev).load(Ordering::Acquire))
                as usize;
        }
        n
    }
}
