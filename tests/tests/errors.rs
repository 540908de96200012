//! Bad input gets a clear error on every backend.

use dcuda::{BackendChoice, Error, LaunchConfig, Ptx, Runtime};
use dcuda_smoke_kernels::intrinsics::MESSAGE_PASSING;
use dcuda_smoke_kernels::saxpy::SAXPY;

fn rt() -> Runtime {
    Runtime::new().unwrap()
}

#[test]
fn unknown_kernel_is_reported_with_the_module_contents() {
    let rt = rt();
    let ptx = Ptx::from_text(
        "tiny",
        70,
        ".version 6.3\n.target sm_70\n.address_size 64\n.visible .entry other()\n{\n\tret;\n}\n",
    );
    let module = rt.load(&ptx).unwrap();
    assert_eq!(module.kernels(), ["other"]);
    let mut y = rt.alloc::<f32>(1).unwrap();
    let x = rt.alloc::<f32>(1).unwrap();
    // SAFETY: never launched: the kernel is missing.
    let err = unsafe {
        module.launch(
            &SAXPY,
            LaunchConfig::linear(1, 1),
            (1.0, x.as_ptr(), y.as_mut_ptr(), 1),
        )
    }
    .err()
    .unwrap();
    match err {
        Error::KernelNotFound {
            module,
            kernel,
            available,
        } => {
            assert_eq!(
                (module.as_str(), kernel.as_str(), available.as_str()),
                ("tiny", "saxpy", "other")
            );
        }
        other => panic!("expected KernelNotFound, got {other:?}"),
    }
}

#[test]
fn invalid_launch_shapes_are_rejected() {
    let rt = rt();
    let module = rt.load(&dcuda_tests::smoke_ptx()).unwrap();
    let mut y = rt.alloc::<f32>(1).unwrap();
    let x = rt.alloc::<f32>(1).unwrap();
    for (config, needle) in [
        (
            LaunchConfig::linear(1, 2048),
            "at most 1024 threads, got 2048",
        ),
        (LaunchConfig::linear(0, 32), "no zero dimension"),
    ] {
        // SAFETY: rejected before launch.
        let err = unsafe { module.launch(&SAXPY, config, (1.0, x.as_ptr(), y.as_mut_ptr(), 1)) }
            .err()
            .unwrap();
        let msg = err.to_string();
        assert!(
            matches!(err, Error::InvalidLaunch { .. })
                && msg.contains(needle)
                && msg.contains("saxpy"),
            "{msg}"
        );
    }
}

#[test]
fn cooperative_launch_beyond_coresidency_is_an_error_not_a_hang() {
    let rt = rt();
    let module = rt.load(&dcuda_tests::smoke_ptx()).unwrap();
    let max = module
        .max_coresident_blocks(&MESSAGE_PASSING, 64, 0)
        .unwrap();
    assert!(max >= 2, "at least two blocks of 64 threads fit");
    let mut a = rt.alloc::<u32>(64).unwrap();
    let mut b = rt.alloc::<u32>(1).unwrap();
    let mut c = rt.alloc::<u32>(65).unwrap();
    // SAFETY: rejected before launch.
    let err = unsafe {
        module.launch(
            &MESSAGE_PASSING,
            LaunchConfig::linear(max + 1, 64).cooperative(),
            (a.as_mut_ptr(), b.as_mut_ptr(), c.as_mut_ptr()),
        )
    }
    .err()
    .unwrap();
    let msg = err.to_string();
    assert!(
        msg.contains(&format!("{} blocks", max + 1)) && msg.contains(&format!("at most {max}")),
        "{msg}"
    );
}

#[test]
fn copies_with_the_wrong_length_are_rejected() {
    let rt = rt();
    let mut buf = rt.alloc::<u32>(4).unwrap();
    let err = buf.copy_from(&[1, 2, 3]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::LengthMismatch {
                expected: 4,
                actual: 3,
                ..
            }
        ),
        "{err}"
    );
    let mut out = [0u32; 5];
    assert!(matches!(
        buf.copy_to(&mut out),
        Err(Error::LengthMismatch {
            expected: 4,
            actual: 5,
            ..
        })
    ));
}

#[test]
fn ptx_for_a_newer_gpu_only_is_rejected_on_a_gpu() {
    let rt = rt();
    let ptx = Ptx::from_text(
        "future",
        1000,
        ".version 9.0\n.target sm_1000\n.address_size 64\n",
    );
    match rt.load(&ptx) {
        Err(Error::PtxArch {
            module, available, ..
        }) => {
            assert_eq!(rt.backend(), dcuda::Backend::Gpu);
            assert_eq!((module.as_str(), available.as_str()), ("future", "sm_1000"));
        }
        Ok(_) => assert_eq!(
            rt.backend(),
            dcuda::Backend::Emulator,
            "only the emulator ignores the architecture"
        ),
        Err(other) => panic!("unexpected {other:?}"),
    }
}

#[test]
fn bad_ptx_is_rejected_with_the_jit_log_on_a_gpu() {
    let rt = rt();
    let ptx = Ptx::from_text("broken", 70, ".version 6.3\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n\tnot_an_instruction;\n}\n");
    match rt.load(&ptx) {
        Err(Error::PtxLoad { module, log, .. }) => {
            assert_eq!(module, "broken");
            assert!(!log.is_empty(), "the JIT log explains the failure");
        }
        Ok(_) => assert_eq!(
            rt.backend(),
            dcuda::Backend::Emulator,
            "the emulator does not compile PTX"
        ),
        Err(other) => panic!("unexpected {other:?}"),
    }
}

#[test]
fn explicit_emulator_choice_wins() {
    let rt = Runtime::builder()
        .backend(BackendChoice::Emulator)
        .quiet()
        .build()
        .unwrap();
    assert_eq!(rt.backend(), dcuda::Backend::Emulator);
    assert_eq!(rt.device_info().compute_capability, None);
}
