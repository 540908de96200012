//! The smoke example: `y = a*x + y` on the GPU, or on the CPU emulator where
//! there is none. Checks its own result and exits non-zero on a mismatch.

use dcuda::{LaunchConfig, Runtime};
use dcuda_smoke_kernels::saxpy::SAXPY;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    dcuda::log::init(); // dcuda's messages to standard error (DCUDA_LOG filters)
                        // ANCHOR: host
    let rt = Runtime::new()?;
    let module = rt.load(&dcuda_examples::smoke_ptx())?;

    let n: u32 = 1 << 16;
    let a = 2.5f32;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..n).map(|i| (n - i) as f32).collect();
    let dx = rt.upload(&x)?;
    let mut dy = rt.upload(&y)?;

    let threads = 256;
    let config = LaunchConfig::linear(n.div_ceil(threads), threads);
    // SAFETY: dx and dy hold n elements each and outlive the launch.
    unsafe { module.launch(&SAXPY, config, (a, dx.as_ptr(), dy.as_mut_ptr(), n))? }.wait()?;

    let result = dy.download()?;
    // ANCHOR_END: host
    let wrong = (0..n as usize)
        .filter(|&i| result[i] != a * x[i] + y[i])
        .count();
    if wrong > 0 {
        return Err(format!("saxpy: {wrong} of {n} elements are wrong").into());
    }
    println!(
        "saxpy: {n} elements correct on the {} backend",
        rt.backend()
    );
    Ok(())
}
