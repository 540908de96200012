//! Put targets: a ring that puts through them (every route: the rank's own
//! copy on one device, the general put through the host between
//! processes), and their misuse.

use crate::runtime_checks::{fill, CheckArgs};
use dcuda_device::{rank, Rank};

/// Words of the small part of each rank's window: a put of at most 16
/// bytes, which the leader copies alone.
pub const SMALL_WORDS: u32 = 4;

/// Ring exchange through put targets made once: each round every rank
/// puts its first `words - 4` values (`me·1000 + round + k`) into the next
/// rank's window with `put_notify_to` (every third round, where it can,
/// by storing them where `put_target_slice` says and a `notify`), and its
/// last four into the window's
/// last four words: by `put_notify_to` in even rounds, by `put_to` of
/// three of them and a `notify` in odd ones. Then the small target is
/// freed and made again (its slot reused) for one more put of
/// `me·1000 + 777 + k`. `out` ends with the window: the previous rank's
/// values.
// ANCHOR: ring
#[rank]
pub fn put_target_ring(rank: &mut Rank, args: &CheckArgs) {
    let world = rank.world();
    let (me, n) = (world.rank(), world.size());
    let data = args.data(rank.device().rank());
    let out = args.out(rank.device().rank());
    let (words, small) = (args.words as usize, SMALL_WORDS as usize);
    let big = words - small;
    let win = rank.win_create(world, data);
    let next = (me + 1) % n;
    let to_big = rank.put_target(win, next, 0, big);
    let to_small = rank.put_target(win, next, big, small);
    for round in 0..args.rounds {
        let tag = round % 256;
        fill(rank, out, |k| me * 1000 + round + k as u32);
        // Every third round the big part is stored where the target lies,
        // where this rank can store there (this device, a mapped GPU),
        // then notified: a put without the copy.
        // SAFETY: used in this round, while the window lives; the next
        // rank reads it only after the notification.
        match unsafe { rank.put_target_slice(to_big) }.filter(|_| round % 3 == 2) {
            Some(there) => {
                fill(rank, there, |k| me * 1000 + round + k as u32);
                rank.notify(world, next, tag);
            }
            None => rank.put_notify_to(to_big, out.slice(0..big), tag),
        }
        if round % 2 == 0 {
            rank.put_notify_to(to_small, out.slice(big..words), tag);
        } else {
            rank.put_to(to_small, out.slice(big..words - 1));
            rank.notify(world, next, tag);
        }
        rank.wait_notifications(tag, 2);
        // The sources are reused and the window read only after this.
        rank.flush(win);
        rank.barrier(world);
    }
    rank.free_put_target(to_small);
    let again = rank.put_target(win, next, big, small);
    fill(rank, out, |k| me * 1000 + 777 + k as u32);
    rank.put_notify_to(again, out.slice(big..words), 0);
    rank.wait_notifications(0, 1);
    rank.flush(win);
    rank.barrier(world);
    // SAFETY: the window is no longer written.
    fill(rank, out, |k| unsafe { data.read(k) });
    rank.win_free(win);
}
// ANCHOR_END: ring

/// Misused put targets; rank 1 makes the mistake. 0: a target used after
/// `free_put_target`; 1: a target used after its window was freed (and a
/// new one made); 2: a seventeenth target; 3: a source longer than the
/// target; 4: a target past the window's end; 5: `put_target_slice` of a
/// freed target.
#[rank]
pub fn put_target_misuse(rank: &mut Rank, args: &CheckArgs) {
    let world = rank.world();
    let me = world.rank();
    let data = args.data(rank.device().rank());
    let words = args.words as usize;
    let win = rank.win_create(world, data);
    match args.case {
        0 => {
            let to = rank.put_target(win, 0, 0, 1);
            rank.free_put_target(to);
            if me == 1 {
                rank.put_notify_to(to, data.slice(0..1), 3);
            }
        }
        1 => {
            let to = rank.put_target(win, 0, 0, 1);
            rank.win_free(win);
            let again = rank.win_create(world, data);
            if me == 1 {
                rank.put_to(to, data.slice(0..1));
            }
            rank.barrier(world);
            rank.win_free(again);
            return;
        }
        2 => {
            if me == 1 {
                for k in 0..17 {
                    rank.put_target(win, 0, k % words, 1);
                }
            }
        }
        3 => {
            let to = rank.put_target(win, 0, 0, 2);
            if me == 1 {
                rank.put_notify_to(to, data.slice(0..3), 0);
            }
        }
        4 => {
            if me == 1 {
                rank.put_target(win, 0, words - 1, 2);
            }
        }
        _ => {
            let to = rank.put_target(win, 0, 0, 1);
            rank.free_put_target(to);
            if me == 1 {
                // SAFETY: refused before any use.
                let _ = unsafe { rank.put_target_slice(to) };
            }
        }
    }
    rank.barrier(world);
    rank.win_free(win);
}
