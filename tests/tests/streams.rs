//! Streams: work on one stream runs in the order it was queued, copies
//! move the ranges asked for, and bad ranges are errors naming the call.

use dcuda::{Error, LaunchConfig, Runtime};
use dcuda_smoke_kernels::saxpy::SAXPY;
use dcuda_tests::smoke_ptx;

#[test]
fn launches_and_copies_run_in_queue_order() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&smoke_ptx()).unwrap();
    let n = 1000usize;
    let x = rt
        .upload(&(0..n).map(|i| i as f32).collect::<Vec<_>>())
        .unwrap();
    let mut y = rt.upload(&vec![1.0f32; n]).unwrap();
    let z = rt.alloc::<f32>(2 * n).unwrap();
    let s = rt.stream().unwrap();
    let config = LaunchConfig::linear(n.div_ceil(128) as u32, 128);
    // SAFETY: the buffers hold n elements and outlive the stream's work
    // (every check below waits for the stream).
    unsafe {
        // y = 2x + 1, then y = 3x + y = 5x + 1; the copies see both steps.
        s.launch(
            &module,
            &SAXPY,
            config,
            (2.0, x.as_ptr(), y.as_mut_ptr(), n as u32),
        )
        .unwrap();
        s.copy(&z, 0, &y, 0..n).unwrap();
        s.launch(
            &module,
            &SAXPY,
            config,
            (3.0, x.as_ptr(), y.as_mut_ptr(), n as u32),
        )
        .unwrap();
        s.copy(&z, n, &y, 0..n).unwrap();
    }
    let mut out = vec![0.0f32; 2 * n];
    s.read(&z, 0, &mut out).unwrap();
    for i in 0..n {
        assert_eq!(out[i], 2.0 * i as f32 + 1.0, "first copy, element {i}");
        assert_eq!(out[n + i], 5.0 * i as f32 + 1.0, "second copy, element {i}");
    }
    // A write into the middle, read back from an offset.
    s.write(&mut y, 10, &[-1.0, -2.0]).unwrap();
    let mut part = [0.0f32; 4];
    s.read(&y, 9, &mut part).unwrap();
    assert_eq!(part, [46.0, -1.0, -2.0, 61.0]);
    s.synchronize().unwrap();
    // Through pinned host memory and back, at offsets.
    let pinned = rt.alloc_mapped::<f32>(4).unwrap();
    // SAFETY: the host reads the pinned buffer only after synchronising.
    unsafe { s.copy_to_mapped(&pinned, 1, &y, 9..12).unwrap() };
    s.synchronize().unwrap();
    assert_eq!(pinned.to_vec(), [0.0, 46.0, -1.0, -2.0]);
    pinned.write(0, 7.0);
    // SAFETY: as above; `z` outlives the copy.
    unsafe { s.copy_from_mapped(&z, 5, &pinned, 0..2).unwrap() };
    s.read(&z, 4, &mut part).unwrap();
    assert_eq!(part, [9.0, 7.0, 46.0, 15.0]);
}

#[test]
fn ranges_outside_a_buffer_are_errors() {
    let rt = Runtime::new().unwrap();
    let a = rt.alloc::<u32>(8).unwrap();
    let mut b = rt.alloc::<u32>(4).unwrap();
    let s = rt.stream().unwrap();
    // SAFETY: refused before anything is queued.
    let err = unsafe { s.copy(&b, 0, &a, 2..8) }.unwrap_err();
    assert!(
        matches!(&err, Error::OutOfRange { call: "Stream::copy (destination)", range, len: 4 } if *range == (0..6)),
        "{err}"
    );
    let err = unsafe { s.copy(&a, 0, &b, 3..5) }.unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutOfRange {
                call: "Stream::copy (source)",
                ..
            }
        ),
        "{err}"
    );
    let err = s.write(&mut b, 3, &[1, 2]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "dcuda: Stream::write: elements 3..5 are outside a buffer of 4"
    );
    let mut out = [0u32; 9];
    assert!(matches!(
        s.read(&a, 0, &mut out),
        Err(Error::OutOfRange {
            call: "Stream::read",
            ..
        })
    ));
}

#[test]
fn a_stream_waits_for_another_without_the_host() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&smoke_ptx()).unwrap();
    // Small for the emulator (an OS thread a GPU thread); on a GPU the
    // launches still take far longer than queuing the copy.
    let n = 2048;
    let x = rt.upload(&vec![1.0f32; n]).unwrap();
    let mut y = rt.upload(&vec![0.0f32; n]).unwrap();
    let z = rt.alloc::<f32>(n).unwrap();
    let (producer, consumer) = (rt.stream().unwrap(), rt.stream().unwrap());
    let config = LaunchConfig::linear(n.div_ceil(256) as u32, 256);
    // SAFETY: the buffers hold n elements and outlive the streams' work.
    unsafe {
        // Enough launches that the copy, unordered, would see a partial sum.
        for _ in 0..20 {
            producer
                .launch(
                    &module,
                    &SAXPY,
                    config,
                    (1.0, x.as_ptr(), y.as_mut_ptr(), n as u32),
                )
                .unwrap();
        }
        consumer.wait_for(&producer).unwrap();
        consumer.copy(&z, 0, &y, 0..n).unwrap();
    }
    let mut out = vec![0.0f32; n];
    consumer.read(&z, 0, &mut out).unwrap();
    assert!(
        out.iter().all(|&v| v == 20.0),
        "the copy ran before the launches"
    );
    // Streams of two runtimes cannot wait for each other.
    let other = Runtime::new().unwrap();
    let err = consumer.wait_for(&other.stream().unwrap()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidArgument {
                call: "Stream::wait_for",
                ..
            }
        ),
        "{err}"
    );
}
