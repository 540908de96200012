#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

struct State {
    last: u32,
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    let mut state = State { last: 0 };
    rank.threads(|t| {
        for i in 0..4 {
            if i == t.index() {
                state.last = i;
            }
        }
    });
    let _ = state.last;
}

fn main() {}
