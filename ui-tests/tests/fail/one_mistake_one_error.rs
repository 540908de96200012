//! A rule violation gives the macro's error and nothing else: the launch
//! handle still exists, so code that uses it does not add errors.
use dcuda_device::{rank, Rank};

#[derive(Clone, Copy)]
struct Args;

#[rank]
fn ring(rank: &mut Rank, _args: &Args) {
    rank.threads(|t| {
        if t.index() == 0 {
            rank.sync_threads();
        }
    });
}

fn main() {
    let _handle = &RING;
}
