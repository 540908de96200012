//! A panic in device code stops the kernel with `trap`: the host sees a
//! launch failure instead of a silent hang or wrong result.

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo) -> ! {
    crate::arch::trap()
}
