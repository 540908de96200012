//! Compile-time rules of `#[rank]` and `#[kernel]`: each `fail/` case must be
//! rejected with the diagnostic in its `.stderr` file, each `pass/` case
//! must compile and run.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/fail/*.rs");
    t.pass("tests/pass/*.rs");
}
