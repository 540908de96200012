//! What the runtime's test binaries share: the rank kernels' module and
//! the buffers of `CheckArgs`.

use dcuda::{Backend, Module, Runtime};
use dcuda_rank_kernels::runtime_checks::CheckArgs;

pub struct Buffers {
    pub data: dcuda::DeviceBuffer<u32>,
    pub out: dcuda::DeviceBuffer<u32>,
    pub words: u32,
}

impl Buffers {
    pub fn new(rt: &Runtime, ranks: u32, words: u32) -> Self {
        let n = (ranks * words) as usize;
        Buffers {
            data: rt.alloc(n).unwrap(),
            out: rt.alloc(n).unwrap(),
            words,
        }
    }
    pub fn args(&mut self, rounds: u32, case: u32) -> CheckArgs {
        CheckArgs {
            data: self.data.slice(),
            out: self.out.slice(),
            words: self.words,
            rounds,
            case,
        }
    }
}

pub fn setup() -> (Runtime, Module) {
    let rt = Runtime::new().unwrap();
    let ptx = dcuda_tests::rank_ptx();
    let module = rt.load(&ptx).unwrap();
    // A GPU loads the SASS the build made for its architecture (DCUDA_SASS),
    // and compiles the PTX where there is none; the emulator runs neither.
    let sass = rt.backend() == Backend::Gpu && ptx.has_sass(module.arch());
    assert_eq!(module.loaded_sass(), sass, "sm_{}", module.arch());
    (rt, module)
}
