//! Intrinsics semantics, run on whichever backend the runtime picks: the
//! emulator in CI, the GPU under `scripts/gpu-run.sh` (DCUDA_BACKEND=gpu).

use dcuda::{LaunchConfig, Module, Runtime};
use dcuda_smoke_kernels::intrinsics::{
    ATOMICS, BLOCK_BARRIER, MAPPED_HANDSHAKE, MESSAGE_PASSING, TIMED_OUT, TIMER,
};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

fn setup() -> (Runtime, Module) {
    let rt = Runtime::new().expect("runtime");
    let module = rt.load(&dcuda_tests::smoke_ptx()).expect("module");
    (rt, module)
}

#[test]
fn block_barrier_orders_shared_memory() {
    let (rt, module) = setup();
    let (blocks, threads, rounds) = (3u32, 128u32, 4u32);
    let mut out = rt.alloc::<u32>((blocks * threads) as usize).unwrap();
    // SAFETY: out has blocks*threads elements.
    unsafe {
        module.launch(
            &BLOCK_BARRIER,
            LaunchConfig::linear(blocks, threads),
            (out.as_mut_ptr(), rounds),
        )
    }
    .unwrap()
    .wait()
    .unwrap();
    let got = out.download().unwrap();
    for b in 0..blocks {
        for t in 0..threads {
            let neighbour = (t + 1) % threads;
            let expected: u32 = (0..rounds).map(|r| neighbour * 7 + b * 1000 + r).sum();
            assert_eq!(
                got[(b * threads + t) as usize],
                expected,
                "block {b} thread {t}"
            );
        }
    }
}

#[test]
fn scoped_atomics_are_atomic() {
    let (rt, module) = setup();
    let (blocks, threads) = (4u32, 64u32);
    let n = (blocks * threads) as usize;
    let mut counters = rt.upload(&[0u32, 0, u32::MAX, 0]).unwrap();
    let mut wide = rt.alloc::<u64>(1).unwrap();
    let host_counter = rt.alloc_mapped::<u32>(1).unwrap();
    let mut previous = rt.alloc::<u32>(n).unwrap();
    let mut tickets = rt.alloc::<u32>(n).unwrap();
    // SAFETY: every buffer is as large as the kernel's indices.
    unsafe {
        module.launch(
            &ATOMICS,
            LaunchConfig::linear(blocks, threads),
            (
                counters.as_mut_ptr(),
                wide.as_mut_ptr(),
                host_counter.device_ptr(),
                previous.as_mut_ptr(),
                tickets.as_mut_ptr(),
            ),
        )
    }
    .unwrap()
    .wait()
    .unwrap();
    let c = counters.download().unwrap();
    assert_eq!(c[0], n as u32, "relaxed gpu-scoped fetch_add");
    assert_eq!(c[1], n as u32, "sys-scoped compare_exchange loop");
    assert_eq!(c[3], n as u32, "acq_rel fetch_add");
    assert_eq!(
        wide.download().unwrap()[0],
        ((n as u64) << 32) + n as u64,
        "64-bit fetch_add"
    );
    assert_eq!(
        host_counter.read(0),
        n as u32,
        "sys-scoped fetch_add on mapped host memory"
    );
    // Exchange: the final value and every previous value together are each
    // thread id once, plus the initial value.
    let mut values: Vec<u32> = previous.download().unwrap();
    values.push(c[2]);
    values.sort_unstable();
    let mut expected: Vec<u32> = (0..n as u32).collect();
    expected.push(u32::MAX);
    assert_eq!(values, expected, "swap lost or duplicated a value");
    // fetch_add returns each ticket exactly once.
    let tickets: BTreeSet<u32> = tickets.download().unwrap().into_iter().collect();
    assert_eq!(
        tickets,
        (0..n as u32).collect(),
        "fetch_add returned duplicate tickets"
    );
}

#[test]
fn mapped_memory_handshake_while_kernel_runs() {
    let (rt, module) = setup();
    let words = 16u32;
    let mailbox = rt.alloc_mapped::<u32>(8 + words as usize).unwrap();
    // SAFETY: the mailbox has 8 + words elements and outlives the launch.
    let mut launch = unsafe {
        module.launch(
            &MAPPED_HANDSHAKE,
            LaunchConfig::linear(1, 32),
            (mailbox.device_ptr(), words),
        )
    }
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while mailbox.load_acquire(0) != 1 {
        assert!(Instant::now() < deadline, "device never published its flag");
        std::thread::yield_now();
    }
    for i in 0..words {
        assert_eq!(
            mailbox.read(8 + i as usize),
            i * 3 + 1,
            "data published before the release"
        );
    }
    assert!(
        !launch.is_finished().unwrap(),
        "the kernel must still be waiting for the host"
    );
    mailbox.write(2, 41);
    mailbox.store_release(1, 1);
    launch.wait().unwrap();
    assert_eq!(mailbox.read(4), 0, "device timed out waiting for the host");
    assert_eq!(mailbox.read(3), 42, "device saw the host's value");
}

#[test]
fn gpu_scoped_fence_orders_message_between_blocks() {
    let (rt, module) = setup();
    let threads = 64u32;
    let mut data = rt.alloc::<u32>(threads as usize).unwrap();
    let mut flag = rt.alloc::<u32>(1).unwrap();
    let mut out = rt.alloc::<u32>(threads as usize + 1).unwrap();
    // SAFETY: buffers sized for two blocks of `threads`.
    unsafe {
        module.launch(
            &MESSAGE_PASSING,
            LaunchConfig::linear(2, threads).cooperative(),
            (data.as_mut_ptr(), flag.as_mut_ptr(), out.as_mut_ptr()),
        )
    }
    .unwrap()
    .wait()
    .unwrap();
    let got = out.download().unwrap();
    assert_ne!(got[threads as usize], TIMED_OUT, "consumer block timed out");
    assert_eq!(
        &got[..threads as usize],
        &(100..100 + threads).collect::<Vec<_>>()[..]
    );
}

#[test]
fn global_timer_advances() {
    let (rt, module) = setup();
    let mut out = rt.alloc::<u64>(3).unwrap();
    // SAFETY: out has 3 elements.
    unsafe { module.launch(&TIMER, LaunchConfig::linear(1, 32), (out.as_mut_ptr(),)) }
        .unwrap()
        .wait()
        .unwrap();
    let t = out.download().unwrap();
    assert!(
        t[1] > t[0],
        "%globaltimer did not advance: {} then {} after {} sleeps",
        t[0],
        t[1],
        t[2]
    );
    assert!(
        t[2] < 1_000_000,
        "%globaltimer needed {} sleeps to advance",
        t[2]
    );
}
