#![allow(unused)]
use dcuda_device::{rank, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: *mut u32,
}

use dcuda_device::arch::{self, Ordering, Scope};

#[rank]
fn k(_rank: &mut Rank, args: &Args) {
    unsafe { arch::fetch_add(args.out, 1, Ordering::Relaxed, Scope::Gpu) };
}

fn main() {}
