//! Where the peer logs lie, and who writes each.

use dcuda_device::abi::{
    stage_offset, MessageRecord, PeerLogs, PEER_LOG, PEER_LOGS_MAX, STAGE_HALF,
};

#[test]
fn every_other_process_of_a_node_writes_its_own_peer_log() {
    for node in 2..=PEER_LOGS_MAX + 3 {
        let logs = PeerLogs {
            ranks: 3,
            logs: PeerLogs::logs_for(node),
        };
        assert_eq!(logs.logs, (node - 1).min(PEER_LOGS_MAX));
        for receiver in 0..node {
            let mut seen = vec![0; logs.logs as usize];
            for sender in (0..node).filter(|&s| s != receiver) {
                if let Some(log) = logs.log_index(sender, receiver) {
                    seen[log as usize] += 1;
                }
            }
            // Each log has one writer; a sender without one goes through the hosts.
            assert!(
                seen.iter().all(|&n| n == 1),
                "node of {node}, receiver {receiver}: {seen:?}"
            );
        }
    }
}

#[test]
fn peer_logs_follow_the_staging_areas_aligned_and_apart() {
    let logs = PeerLogs { ranks: 5, logs: 3 };
    let base = 1u64 << 20;
    let staging_end = base + stage_offset(5) + 5 * 2 * STAGE_HALF as u64;
    let record = std::mem::size_of::<MessageRecord>() as u64;
    let mut ranges = Vec::new();
    for dev in 0..5 {
        for log in 0..3 {
            let (records, retired) = logs.log_at(base, dev, log);
            assert!(retired as u64 >= staging_end);
            assert_eq!(records as u64 % record, 0);
            ranges.push((records as u64, records as u64 + PEER_LOG as u64 * record));
            ranges.push((retired as u64, retired as u64 + 4));
        }
    }
    ranges.sort_unstable();
    for pair in ranges.windows(2) {
        assert!(pair[0].1 <= pair[1].0, "overlap: {pair:?}");
    }
    assert_eq!(ranges.last().unwrap().1, base + logs.end());
}
