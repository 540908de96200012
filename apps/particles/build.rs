// The package's own library holds the rank kernels: build it to PTX.
fn main() {
    dcuda_builder::PtxBuilder::new(".")
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
}
