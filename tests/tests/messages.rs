//! Two-sided messages on one device: a flood of eager and long messages to
//! one rank (a burst of short ones that overfills its log first), received
//! past each other and with wildcards in each sender's order; probe and
//! iprobe; long messages in pairs, also long enough that the receiver and
//! the sender copy them together; the same tag on two communicators kept
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

/// Long messages of at least `SPLIT_MIN` bytes, whose copy the receiver
/// shares with the waiting sender (`message_split`), with an odd length
/// so that the sender's part is not a whole number of words per thread.
#[test]
fn long_messages_copied_by_receiver_and_sender() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    for (ranks, rounds) in [(2u32, 4u32), (3, 5)] {
        dcuda_tests::messages::check_messages(&rt, &module, (ranks, 0, ranks), (16_389, rounds))
            .unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}
