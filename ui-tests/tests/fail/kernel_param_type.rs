#![allow(unused)]
use dcuda_device::kernel;

#[kernel]
fn takes_a_vec(v: Vec<u32>) {
    let _ = v.len();
}

fn main() {}
