// Builds the kernel crate to PTX; `include_ptx!("hello_kernels")` embeds it.
fn main() {
    dcuda_builder::PtxBuilder::new("../kernels")
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
}
