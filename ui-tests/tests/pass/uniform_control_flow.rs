//! Branches and loops on uniform values (rank ids, sizes, arguments) may
//! contain collective calls.
use dcuda_device::{rank, Rank, Sum};

#[derive(Clone, Copy)]
struct Args {
    rounds: u32,
}

#[rank]
fn k(rank: &mut Rank, args: &Args) {
    if rank.id() % 2 == 0 {
        rank.sync_threads();
    } else {
        let _ = rank.reduce(|t| t.index(), Sum);
    }
    for _ in 0..args.rounds {
        rank.sync_threads();
    }
    let mut step = 1;
    while step < rank.size() {
        rank.sync_threads();
        step *= 2;
    }
    match rank.id() {
        0 => rank.sync_threads(),
        _ => {}
    }
    if let Some(prev) = rank.id().checked_sub(1) {
        let _ = rank.single(|_| prev);
    }
}

fn main() {
    assert_eq!(K.name(), "k");
}
