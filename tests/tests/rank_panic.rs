//! A panicking rank fails the launch, naming the rank. Its own test binary:
//! on a GPU the trap leaves the process's CUDA context unusable.

use dcuda::{Backend, Error, RunConfig, Runtime};
use dcuda_rank_kernels::collectives::{MisuseArgs, RANK_PANICS};

#[test]
fn a_panicking_rank_fails_the_launch() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    let out = rt.alloc::<u32>(4).unwrap();
    let args = MisuseArgs { out: out.slice() };
    // SAFETY: out has one element per rank.
    let result = unsafe { module.run(&RANK_PANICS, &RunConfig::new(32).ranks(4), &args) };
    match result {
        Err(Error::KernelFault { kernel, message }) => {
            assert_eq!(kernel, "rank_panics");
            if rt.backend() == Backend::Emulator {
                assert!(
                    message.contains("rank 2 panicked: rank 2 gives up"),
                    "{message}"
                );
            }
        }
        other => panic!("expected a kernel fault, got {other:?}"),
    }
}
