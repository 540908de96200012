fn main() {
    dcuda_builder::PtxBuilder::new("../kernels-ptx/bench")
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
}
