use super::*;
use proptest::prelude::*;

fn round_trip(m: Message<Vec<u8>>) {
    let bytes = m.clone().encode();
    let back = Message::decode(&bytes).expect("decodes");
    let owned = match back {
        Message::Put {
            source,
            target,
            window,
            offset,
            tag,
            data,
        } => Message::Put {
            source,
            target,
            window,
            offset,
            tag,
            data: data.to_vec(),
        },
        Message::GetReply {
            rank,
            local,
            last,
            data,
        } => Message::GetReply {
            rank,
            local,
            last,
            data: data.to_vec(),
        },
        Message::Get {
            source,
            target,
            window,
            offset,
            bytes,
            local,
            tag,
        } => Message::Get {
            source,
            target,
            window,
            offset,
            bytes,
            local,
            tag,
        },
        Message::Send {
            target,
            context,
            source,
            tag,
            data,
        } => Message::Send {
            target,
            context,
            source,
            tag,
            data: data.to_vec(),
        },
        Message::SendMapped {
            target,
            context,
            source,
            tag,
            bytes,
            rank,
            handle,
            offset,
        } => Message::SendMapped {
            target,
            context,
            source,
            tag,
            bytes,
            rank,
            handle,
            offset,
        },
        Message::PutLaid {
            source,
            target,
            window,
            offset,
            tag,
            data,
        } => Message::PutLaid {
            source,
            target,
            window,
            offset,
            tag,
            data: data.to_vec(),
        },
        Message::GetLaid {
            source,
            target,
            window,
            offset,
            bytes,
            local,
            tag,
            header,
        } => Message::GetLaid {
            source,
            target,
            window,
            offset,
            bytes,
            local,
            tag,
            header: header.to_vec(),
        },
        Message::Taken { rank } => Message::Taken { rank },
        Message::Setup(s) => Message::Setup(s),
        Message::Sync { seq, sent, window } => Message::Sync { seq, sent, window },
        Message::CommSync {
            context,
            lead,
            seq,
            sent,
            entries,
        } => Message::CommSync {
            context,
            lead,
            seq,
            sent,
            entries,
        },
        Message::Abort(t) => Message::Abort(t),
    };
    assert_eq!(owned, m);
}

#[test]
fn every_kind_round_trips() {
    let entry = WindowEntry {
        base: 0x1000,
        bytes: 64,
        elem: 4,
        generation: 1,
        comm: 0,
        route: 2,
        live: 1,
        matched: 0,
    };
    round_trip(Message::Put {
        source: 1,
        target: 2,
        window: 3,
        offset: 4,
        tag: Some(5),
        data: vec![9; 100],
    });
    round_trip(Message::Put {
        source: 1,
        target: 2,
        window: 3,
        offset: 4,
        tag: None,
        data: vec![],
    });
    round_trip(Message::Get {
        source: 1,
        target: 2,
        window: 3,
        offset: 4,
        bytes: 5,
        local: 6,
        tag: None,
    });
    round_trip(Message::PutLaid {
        source: 1,
        target: 2,
        window: 3,
        offset: 4,
        tag: Some(6),
        data: vec![7; 80],
    });
    round_trip(Message::GetLaid {
        source: 1,
        target: 2,
        window: 3,
        offset: 4,
        bytes: 16,
        local: 6,
        tag: Some(1),
        header: vec![2; 64],
    });
    round_trip(Message::GetReply {
        rank: 7,
        local: 8,
        last: true,
        data: vec![1, 2, 3],
    });
    round_trip(Message::Send {
        target: 3,
        context: 17,
        source: 2,
        tag: 255,
        data: vec![9; 300],
    });
    round_trip(Message::SendMapped {
        target: 3,
        context: 17,
        source: 2,
        tag: 255,
        bytes: 1 << 20,
        rank: 5,
        handle: [7; 64],
        offset: 4096,
    });
    round_trip(Message::Taken { rank: 5 });
    round_trip(Message::Setup(Setup {
        ranks: 9,
        node: 1,
        traced: true,
        pci: "0000:1b:00.0".into(),
        counters: Some(([7; 64], 12)),
        symmetric: None,
    }));
    round_trip(Message::Setup(Setup {
        ranks: 2,
        node: 0,
        traced: false,
        pci: String::new(),
        counters: None,
        symmetric: Some((1 << 30, 4096)),
    }));
    round_trip(Message::Sync {
        seq: 3,
        sent: 99,
        window: None,
    });
    round_trip(Message::Sync {
        seq: 4,
        sent: 1,
        window: Some((
            5,
            vec![
                SharedEntry {
                    entry,
                    ipc: None,
                    symmetric: Some(512),
                },
                SharedEntry {
                    entry,
                    ipc: Some(([1; 64], 8)),
                    symmetric: None,
                },
            ],
        )),
    });
    round_trip(Message::CommSync {
        context: 7,
        lead: 3,
        seq: 2,
        sent: 11,
        entries: vec![],
    });
    round_trip(Message::CommSync {
        context: 40,
        lead: 0,
        seq: 0,
        sent: 0,
        entries: vec![
            (
                5,
                SplitEntry {
                    color: 1,
                    key: 2,
                    next_context: 3,
                    live: 4,
                },
            ),
            (6, SplitEntry::default()),
        ],
    });
    round_trip(Message::Abort("process 3 failed".into()));
}

#[test]
fn malformed_messages_are_errors() {
    let good = Message::Get {
        source: 1,
        target: 2,
        window: 3,
        offset: 4,
        bytes: 5,
        local: 6,
        tag: None,
    }
    .encode();
    // Truncated anywhere, a stray byte, an unknown kind, a payload where none belongs.
    for cut in 0..good.len() {
        assert!(
            Message::decode(&good[cut..]).is_err() || cut == 0,
            "cut {cut}"
        );
        assert!(Message::decode(&good[..cut]).is_err(), "prefix {cut}");
    }
    let mut kind = good.clone();
    *kind.last_mut().unwrap() = 99;
    let err = Message::decode(&kind).unwrap_err().to_string();
    assert!(err.contains("unknown message kind 99"), "{err}");
    let mut payload = vec![0u8];
    payload.extend_from_slice(&good);
    assert!(Message::decode(&payload)
        .unwrap_err()
        .to_string()
        .contains("with a payload"));
}

/// The corpus of malformed messages: each decodes to an error.
#[test]
fn corpus_of_malformed_messages_is_rejected() {
    let corpus = include_str!("corpus.txt");
    let mut seen = 0;
    for line in corpus.lines().filter(|l| !l.starts_with('#')) {
        let (hex, why) = line.split_once(" # ").expect("hex # reason");
        let bytes: Vec<u8> = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex"))
            .collect();
        assert!(Message::decode(&bytes).is_err(), "accepted: {why}");
        seen += 1;
    }
    assert!(seen >= 15, "corpus read {seen} lines");
}

proptest! {
    /// Whatever arrives, decoding returns a message or an error: it never
    /// panics or reads out of bounds.
    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = Message::decode(&bytes);
    }

    /// A put survives encoding whatever its fields and data.
    #[test]
    fn puts_round_trip(source: u32, target: u32, window: u32, offset: u64, tag in proptest::option::of(0u32..512), data in proptest::collection::vec(any::<u8>(), 0..200)) {
        round_trip(Message::Put { source, target, window, offset, tag, data });
    }
}
