//! Loading a module: a GPU loads the SASS the build made for its
//! architecture (`DCUDA_SASS`) and compiles the PTX where there is none or
//! where a register cap or a load caching asks for a compile; the kernels
//! run either way.

use dcuda::{Backend, LaunchConfig, LoadCaching, LoadOptions, Runtime};
use dcuda_smoke_kernels::saxpy::SAXPY;

#[test]
fn sass_where_the_build_made_it_else_the_ptx() {
    let rt = Runtime::new().unwrap();
    let ptx = dcuda_tests::smoke_ptx();
    let capped = LoadOptions::default().max_registers(64);
    let in_l2 = LoadOptions::default().caching(LoadCaching::L2Only);
    for (options, compiled) in [
        (LoadOptions::default(), false),
        (capped, true),
        (in_l2, true),
    ] {
        let module = rt.load_with(&ptx, &options).unwrap();
        let sass = rt.backend() == Backend::Gpu && ptx.has_sass(module.arch()) && !compiled;
        assert_eq!(
            module.loaded_sass(),
            sass,
            "sm_{}, {options:?}",
            module.arch()
        );
        let n = 1000;
        let x = rt.upload(&vec![2.0f32; n]).unwrap();
        let mut y = rt.upload(&vec![1.0f32; n]).unwrap();
        // SAFETY: both buffers hold n elements.
        unsafe {
            module.launch(
                &SAXPY,
                LaunchConfig::linear(n.div_ceil(128) as u32, 128),
                (3.0f32, x.as_ptr(), y.as_mut_ptr(), n as u32),
            )
        }
        .unwrap()
        .wait()
        .unwrap();
        assert_eq!(y.download().unwrap(), vec![7.0f32; n]);
    }
}
