#![allow(unused)]
use dcuda_device::kernel;

#[kernel]
fn generic<T: Copy>(_x: T) {}

#[kernel]
fn returns(x: u32) -> u32 {
    x
}

#[kernel]
fn pattern((a, b): (u32, u32)) {
    let _ = a + b;
}

fn main() {}
