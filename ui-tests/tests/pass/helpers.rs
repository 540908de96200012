//! Helpers and closures that take the rank handle as a parameter.
use dcuda_device::{rank, Max, Rank};

#[derive(Clone, Copy)]
struct Args;

fn exchange(rank: &mut Rank) -> u32 {
    rank.sync_threads();
    rank.reduce(|t| t.index(), Max)
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    let m = exchange(rank);
    let twice = |r: &mut Rank| {
        r.sync_threads();
        r.sync_threads();
    };
    twice(rank);
    let r = &mut *rank;
    r.sync_threads();
    let _ = m;
}

fn main() {}
