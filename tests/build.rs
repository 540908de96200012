// ANCHOR: build
fn main() {
    dcuda_builder::PtxBuilder::new("../kernels-ptx/smoke")
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    dcuda_builder::PtxBuilder::new("../kernels-ptx/ranks")
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
}
// ANCHOR_END: build
