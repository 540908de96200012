//! A device panic ends the launch with an error instead of a hang. Each
//! test binary holds one such test: on a GPU the trap leaves the process's
//! CUDA context unusable (see `rank_panic.rs` for the rank kernel case).

use dcuda::{Error, LaunchConfig, Runtime};
use dcuda_smoke_kernels::intrinsics::PANICS;

#[test]
fn device_panic_is_a_kernel_fault() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::smoke_ptx()).unwrap();
    let mut out = rt.alloc::<u32>(32).unwrap();
    // SAFETY: out has 32 elements, one per thread.
    let result =
        unsafe { module.launch(&PANICS, LaunchConfig::linear(2, 32), (out.as_mut_ptr(),)) }
            .unwrap()
            .wait();
    match result {
        Err(Error::KernelFault { kernel, message }) => {
            assert_eq!(kernel, "panics");
            if rt.backend() == dcuda::Backend::Emulator {
                assert!(
                    message.contains("block (1,0,0) thread (5,0,0)"),
                    "{message}"
                );
                assert!(message.contains("deliberate device panic"), "{message}");
            }
        }
        other => panic!("expected a kernel fault, got {other:?}"),
    }
    if rt.backend() == dcuda::Backend::Gpu {
        // A trap leaves the CUDA context unusable; later calls say why.
        let err = rt.alloc::<u32>(1).err().expect("the context is gone");
        assert!(err.to_string().contains("kernel `panics` faulted"), "{err}");
    }
}
