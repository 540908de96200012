//! A raw #[kernel] uses the thread intrinsics directly, like CUDA C++.
use dcuda_device::arch::{block_dim, block_idx, thread_idx};
use dcuda_device::kernel;

#[kernel]
unsafe fn scale(x: *mut f32, a: f32, n: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i < n {
        *x.add(i as usize) *= a;
    }
}

fn main() {
    assert_eq!(SCALE.name(), "scale");
}
