//! Runs the ring on every rank that fits, on the GPU or the CPU emulator,
//! and checks what each rank received.

use dcuda::{RunConfig, Runtime};
use hello_kernels::{RingArgs, RING};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    dcuda::log::init(); // dcuda's messages to standard error (DCUDA_LOG filters)
    let rt = Runtime::new()?; // prints the backend it chose
    // The argument of include_ptx! is the kernel crate's library name.
    let module = rt.load(&dcuda::include_ptx!("hello_kernels"))?;
    let config = RunConfig::new(64); // ranks of 64 threads, as many as fit
    let info = module.rank_info(&RING, &config)?;
    let ranks = info.ranks_on_device as usize;
    // Runtime::alloc returns zeroed device memory.
    let inbox = rt.alloc::<u32>(ranks)?;
    let outbox = rt.alloc::<u32>(ranks)?;
    let args = RingArgs {
        inbox: inbox.slice(),
        outbox: outbox.slice(),
    };
    // SAFETY: the buffers hold a slot per rank and outlive the run.
    unsafe { module.run(&RING, &config, &args)? };
    let threads = (0..config.threads_per_rank()).sum::<u32>();
    let got = inbox.download()?;
    let n = info.rank_count;
    for (id, value) in got.iter().enumerate() {
        let me = info.first_rank + id as u32;
        let from = (me + n - 1) % n;
        if *value != threads + from {
            return Err(format!("rank {me} got {value}, expected {}", threads + from).into());
        }
    }
    println!("hello: {ranks} ranks passed the ring around on the {} backend", rt.backend());
    Ok(())
}
