//! Misuse that must end a run with an error naming the rank, the call and
//! the values (tests/tests/runtime.rs, and across processes world_checks):
//! bad arguments and window misuse that used to corrupt memory silently.

use super::runtime_checks::CheckArgs;
use dcuda_device::{rank, shared_array, Datatype, DeviceSlice, Indexed, Rank, Source};

shared_array!(static STAGE: [u32; 4]);
shared_array!(static LISTS: [u32; 8]);

/// Bad arguments, chosen by `args.case`; rank 1 makes the bad call while
/// the others wait in a barrier, which the abort must release. Cases 7
/// and 8 fail only when the world spans processes (7: only through the
/// host, which cannot read shared memory). Case 9 notifies with a tag of
/// the library's reserved range, case 10 makes a window of shared memory,
/// case 11 puts at an offset so large that adding the count wraps, case 12
/// (only across processes) makes a window on a dup of the world, case 13
/// broadcasts from a root that does not exist, case 14 frees the world,
/// case 15 uses a communicator it freed, case 16 splits with the reserved
/// color, case 17 gathers into a destination too short, case 18 passes
/// `alltoall_into` a source whose length is not a multiple of the
/// communicator's size, case 19 gathers to a root that does not exist,
/// case 20 sends with a reserved tag, case 21 receives a message of two
/// elements into a buffer of one, case 22 probes a source that does not
/// exist, case 23 aborts the run with a code of its own (`Rank::abort`),
/// cases 24 to 27 make typed puts whose datatypes move different counts,
/// reach past the local buffer, name a target element twice, or reach past
/// the target window, and case 28 makes that last one to the last world
/// rank (checked the same way across processes, through the host). Case 29 puts into an indexed
/// target whose blocks go backwards, case 30 from an indexed source whose
/// `firsts` decrease, case 31 from an indexed source whose displacements
/// lie in the window it writes, so that the put changes them as it goes
/// (on the emulator, whose threads run one after the other, two elements
/// then point past the source). Case 32 notifies nine targets at once.
#[rank]
pub fn bad_call(rank: &mut Rank, args: &CheckArgs) {
    let world = rank.world();
    let me = world.rank();
    let words = args.words as usize;
    let data = args.data(rank.device().rank());
    let win = rank.win_create(world, data);
    let freed = rank.win_create(rank.device(), data);
    rank.win_free(freed);
    // Every rank alone in a communicator of its own.
    let solo = rank.comm_split(rank.device(), Some(rank.id()), 0);
    let everyone = rank.comm_dup(world);
    if me == 1 {
        let src = args.out(rank.device().rank());
        match args.case {
            0 => rank.put(win, world.size() + 3, 0, src.slice(0..1)),
            1 => rank.put_notify(win, 0, words - 1, src.slice(0..2), 0),
            2 => rank.notify(world, 0, 700),
            3 => rank.get(freed, 0, 0, src.slice(0..1)),
            4 => rank.wait_notifications(1, u32::MAX),
            5 => rank.flush(freed),
            6 => {
                // One byte past an aligned address: misaligned for u32.
                // SAFETY: two words inside this rank's data (never accessed).
                let odd = unsafe {
                    DeviceSlice::from_raw_parts(
                        (data.as_mut_ptr() as *mut u8).wrapping_add(1) as *mut u32,
                        2,
                    )
                };
                let _ = rank.win_create(world, odd);
            }
            7 => rank.put(win, world.size() - 1, 0, STAGE.as_slice()),
            8 => {
                let _ = rank.win_create_matched(world, data);
            }
            9 => rank.notify(world, 0, 300),
            11 => rank.put(win, 0, usize::MAX, src.slice(0..1)),
            12 => {
                let _ = rank.win_create(everyone, data);
            }
            13 => {
                let _ = rank.bcast(rank.device(), 9, 1u32);
            }
            14 => rank.comm_free(world),
            15 => {
                if let Some(solo) = solo {
                    rank.comm_free(solo);
                    rank.notify(solo, 0, 1);
                }
            }
            16 => {
                if let Some(solo) = solo {
                    let _ = rank.comm_split(solo, Some(u32::MAX), 0);
                }
            }
            17 => rank.allgather_into(rank.device(), src.slice(0..1), src.slice(1..4)),
            18 => rank.alltoall_into(rank.device(), src.slice(0..5), src.slice(5..13)),
            19 => rank.gather_into(rank.device(), 9, src.slice(0..1), src.slice(1..5)),
            20 => rank.send(world, 0, 300, src.slice(0..1)),
            21 => {
                rank.send(world, me, 5, src.slice(0..2));
                let _ = rank.recv(world, Source::Rank(me), Some(5), src.slice(2..3));
            }
            22 => {
                let _ = rank.probe(world, Source::Rank(world.size() + 5), None);
            }
            23 => rank.abort(7, [5000, 4096, me as u64]),
            24 => {
                let (three, four) = (Datatype::contiguous(3), Datatype::contiguous(4));
                rank.put_typed(win, 0, (0, three), (src.slice(0..4), four));
            }
            25 => {
                let column = Datatype::vector(2, 1, 5);
                rank.put_typed(
                    win,
                    0,
                    (0, Datatype::contiguous(2)),
                    (src.slice(0..4), column),
                );
            }
            26 => {
                let twice = Datatype::vector(2, 2, 1);
                rank.put_typed(
                    win,
                    0,
                    (0, twice),
                    (src.slice(0..4), Datatype::contiguous(4)),
                );
            }
            27 => {
                let column = Datatype::vector(2, 1, 5);
                rank.put_typed(
                    win,
                    0,
                    (12, column),
                    (src.slice(0..2), Datatype::contiguous(2)),
                );
            }
            28 => {
                let (column, last) = (Datatype::vector(2, 1, 5), world.size() - 1);
                let two = Datatype::contiguous(2);
                rank.put_typed(win, last, (12, column), (src.slice(0..2), two));
            }
            29 | 30 => {
                // Displacements 2, 1 for 29; firsts 0, 3, 2 and
                // displacements 0, 5 for 30; in this rank's shared memory.
                let lists = LISTS.as_slice();
                let values = [2, 1, 0, 3, 2, 0, 5, 0];
                rank.threads(|t| {
                    if let Some(&v) = values.get(t.index() as usize) {
                        LISTS.set(t.index() as usize, v);
                    }
                });
                rank.sync_threads();
                let one = Datatype::contiguous(2);
                if args.case == 29 {
                    let backwards = Indexed::blocks(1, lists.slice(0..2));
                    rank.put_typed(win, 0, (0, backwards), (src.slice(0..2), one));
                } else if let Ok(decreasing) = Indexed::new(lists.slice(2..5), lists.slice(5..7)) {
                    rank.put_typed(win, 0, (0, one), (src.slice(0..8), decreasing));
                }
            }
            31 => {
                // Displacements 0..4 in words 0..4 of this rank's window;
                // the put writes words 1..5 of it with 1000s.
                rank.threads(|t| {
                    let i = t.index() as usize;
                    // SAFETY: one word each, by one thread.
                    unsafe {
                        if i < 4 {
                            data.write(i, i as u32);
                        }
                        if i < src.len() {
                            src.write(i, 1000);
                        }
                    }
                });
                rank.sync_threads();
                let listed = Indexed::blocks(1, data.slice(0..4));
                rank.put_typed(win, me, (1, Datatype::contiguous(4)), (src, listed));
            }
            32 => rank.notify_each(world, &[0; 9], 1),
            _ => {
                let _ = rank.win_create(world, STAGE.as_slice());
            }
        }
    }
    rank.barrier(world);
    rank.win_free(win);
}

/// Window misuse that used to corrupt memory silently, chosen by
/// `args.case`; rank 1 makes the bad access. 0: rank 0 makes its window
/// of bytes while the others make theirs of `u32`, and rank 1 puts `u32`s
/// to rank 0. 1: a window is freed and a new one takes its id; rank 1 puts
/// through the old handle. 2: rank 0 makes its window over the device
/// communicator, the others over the world. 3: rank 0 frees the window
/// while the others keep it.
#[rank]
pub fn window_misuse(rank: &mut Rank, args: &CheckArgs) {
    let world = rank.world();
    let me = world.rank();
    let data = args.data(rank.device().rank());
    match args.case {
        0 => {
            if me == 0 {
                // SAFETY: the same memory as `data`, viewed as bytes.
                let bytes = unsafe {
                    DeviceSlice::from_raw_parts(data.as_mut_ptr() as *mut u8, data.len() * 4)
                };
                let win = rank.win_create(world, bytes);
                rank.barrier(world);
                rank.win_free(win);
            } else {
                let win = rank.win_create(world, data);
                if me == 1 {
                    rank.put(win, 0, 0, data.slice(0..2));
                }
                rank.barrier(world);
                rank.win_free(win);
            }
        }
        1 => {
            let old = rank.win_create(world, data);
            rank.win_free(old);
            let new = rank.win_create(world, data);
            if me == 1 {
                rank.put(old, 0, 0, data.slice(0..1));
            }
            rank.barrier(world);
            rank.win_free(new);
        }
        2 => {
            // One process: both communicators synchronise through the
            // device barrier, so creation completes and the put finds it.
            let comm = if me == 0 { rank.device() } else { world };
            let win = rank.win_create(comm, data);
            if me == 1 {
                rank.put(win, 0, 0, data.slice(0..1));
            }
            rank.barrier(world);
            rank.win_free(win);
        }
        _ => {
            let win = rank.win_create(world, data);
            if me == 0 {
                rank.win_free(win);
            } else {
                // As many barriers as the free (one before, one to publish).
                rank.barrier(world);
                rank.barrier(world);
            }
            if me == 1 {
                rank.put(win, 0, 0, data.slice(0..1));
            }
            rank.barrier(world);
            if me != 0 {
                rank.win_free(win);
            }
        }
    }
}
