//! Two-sided messages on one device: a flood of eager and long messages to
//! one rank (a burst of short ones that overfills its log first), received
//! past each other and with wildcards in each sender's order; probe and
//! iprobe; long messages in pairs; the same tag on two communicators kept
//! apart.

use dcuda::Runtime;

#[test]
fn send_recv_probe_on_one_device() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    for (ranks, rounds) in [(1u32, 0u32), (2, 48), (3, 7), (12, 30)] {
        dcuda_tests::messages::check_messages(&rt, &module, (ranks, 0, ranks), (300, rounds))
            .unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}
