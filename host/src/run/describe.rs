//! What the host says about the device: a rank's error, a waiting rank,
//! and log messages, formatted from the raw records the device wrote.

use dcuda_device::abi::{
    contexts, Call, ErrorRecord, Fault, LogArg, WaitStatus, MAX_WINDOWS, TAGS, USER_TAGS,
};

fn comm_name(context: u64) -> String {
    match context as u32 {
        contexts::WORLD => "world".into(),
        contexts::DEVICE => "device".into(),
        other => format!("context {other}"),
    }
}

/// `v`, and, when it is a small negative number wrapped around (an offset
/// computed as `me - 1` at rank 0, say), that number.
fn signed_hint(v: u64) -> String {
    let signed = v as i64;
    if (-(1 << 32)..0).contains(&signed) {
        format!("{v} (that is {signed})")
    } else {
        v.to_string()
    }
}

/// The record as a sentence naming the rank, the call and the values.
pub(crate) fn describe_error(e: &ErrorRecord) -> String {
    let call = Call::from_u32(e.call.wrapping_sub(1))
        .map(Call::name)
        .unwrap_or("unknown call");
    let [a, b, c, d] = e.values;
    let detail = match Fault::from_u32(e.fault) {
        Some(Fault::RankOutOfRange) if matches!(Call::from_u32(e.call.wrapping_sub(1)), Some(Call::Bcast | Call::ReduceTo | Call::Gather | Call::Scatter)) => format!("root {a} is out of range: the communicator has {b} ranks"),
        Some(Fault::RankOutOfRange) if matches!(Call::from_u32(e.call.wrapping_sub(1)), Some(Call::Recv | Call::Probe | Call::Iprobe)) => format!("source rank {a} is out of range: the communicator has {b} ranks"),
        Some(Fault::RankOutOfRange) => format!("target rank {a} is out of range: the communicator has {b} ranks"),
        Some(Fault::OutOfBounds) => format!(
            "elements {}..{} are outside the target window of rank {c}, which has {b} elements",
            signed_hint(a),
            signed_hint(a.wrapping_add(d)),
        ),
        Some(Fault::TagOutOfRange) => format!("tag {a} is out of range: tags are 0..{USER_TAGS}"),
        Some(Fault::TagReserved) => format!("tag {a} is reserved for the library's own traffic ({USER_TAGS}..{TAGS}); user tags are 0..{USER_TAGS}"),
        Some(Fault::WindowNotLive) if b == 1 => format!("window {a} is not live at rank {c}: every rank of its communicator must create it, and none may free it while others still use it"),
        Some(Fault::WindowNotLive) => format!("window {a} is not live (never created, or freed)"),
        Some(Fault::WrongCommunicator) => format!(
            "this rank created window {a} over the {} communicator, but rank {d} over the {}: every rank must create a window over the same communicator",
            comm_name(c),
            comm_name(b)
        ),
        Some(Fault::ElementMismatch) if a == u64::MAX => format!(
            "rank {d} passed elements of {b} bytes, this rank of {c} bytes: every rank must pass slices of the same element type"
        ),
        Some(Fault::ElementMismatch) => format!(
            "window {a} holds elements of {b} bytes at rank {d}, but this rank uses it with elements of {c} bytes: every rank must create a window with the same element type"
        ),
        Some(Fault::StaleWindow) => format!(
            "the window handle is stale: window {a} (number {b} of its communicator) was freed, and its id now belongs to window number {c}"
        ),
        Some(Fault::TooManyWindows) => format!("more than {MAX_WINDOWS} windows are live"),
        Some(Fault::CountTooLarge) => format!("count {a} exceeds the maximum {b}"),
        Some(Fault::WindowMisaligned) => format!("window base {a:#x} ({b} bytes) is not aligned to its element type's {c} bytes"),
        Some(Fault::NotGlobal) if Call::from_u32(e.call.wrapping_sub(1)) == Some(Call::WinCreate) => format!("window memory {a:#x} is not in global memory: shared memory belongs to one rank, and no other rank can reach it; make windows of device memory (a DeviceBuffer's slice)"),
        Some(Fault::NotGlobal) => format!("buffer {a:#x} of an access to rank {b} is not in global memory: the host moves data to and from other processes, and it can only reach global memory (not shared or local memory)"),
        Some(Fault::LengthMismatch) if c == u64::MAX => format!("the source has {a} elements and the destination {b}: they must be equally long"),
        Some(Fault::LengthMismatch) if c == u64::MAX - 1 => format!("ranks of another process passed buffers of {b} elements, this rank of {a}: every rank must pass the same length"),
        Some(Fault::LengthMismatch) => format!("rank {c} passed buffers of {b} elements, this rank of {a}: every rank must pass the same length"),
        Some(Fault::CollectiveAcrossProcesses) if Call::from_u32(e.call.wrapping_sub(1)) == Some(Call::WinCreate) => format!("windows over a split communicator that spans processes are not built yet: this communicator has {a} ranks on {b} processes; create the window over the world communicator, or split inside one GPU"),
        Some(Fault::CollectiveAcrossProcesses) => format!("this call between ranks of different processes is not built yet: this communicator has {a} ranks on {b} processes"),
        Some(Fault::TooManyComms) if d == 1 => format!("communicator slot {c}'s table has no room for {b} more entries (the communicators of this GPU in that slot hold the rest); free communicators you are done with"),
        Some(Fault::TooManyComms) if b > u32::MAX as u64 - 65536 => format!("context ids are used up (the highest is {b})"),
        Some(Fault::TooManyComms) => format!("no communicator slot is free on every rank: at most {a} communicators made by comm_split or comm_dup may be live on a rank at once; free those you are done with (comm_free)"),
        Some(Fault::CommNotLive) if b < 2 => format!("the {} communicator cannot be freed: only communicators made by comm_split or comm_dup can", comm_name(a)),
        Some(Fault::CommNotLive) => format!("the communicator of context {a} (slot {b}) is not live on this rank: it was freed (comm_free)"),
        Some(Fault::TooManyProcesses) => format!("the communicator spans {a} processes; collectives and splits between processes support at most {b}"),
        Some(Fault::BufferLength) => format!(
            "the {} has {a} elements, but {b} are needed: a chunk of {} elements for each of the communicator's {d} ranks",
            if c == 0 { "source" } else { "destination" },
            b / d.max(1)
        ),
        Some(Fault::ColorReserved) => format!("color {a} is reserved: colors are 0..{a}; pass None to join no communicator"),
        Some(Fault::MessageTruncated) => format!("the message from rank {c} with tag {d} has {a} bytes, but the receive buffer only {b}: pass a buffer at least as long (probe tells a message's length)"),
        Some(Fault::TypeMismatch) => format!("the origin datatype moves {a} elements and the target datatype {b}: they must move as many"),
        Some(Fault::TypeExtent) => format!("the local datatype reaches element {a}, but the local buffer has {b} elements"),
        Some(Fault::TypeOverlap) if b == u64::MAX => format!("the {} datatype may name one element twice (a stride shorter than what the smaller strides span): a datatype that is written to must not overlap", if a == 0 { "target" } else { "local" }),
        Some(Fault::TypeOverlap) => format!("block {b} of the {} indexed layout starts before block {} ends: a layout that is written to lists its blocks in increasing order without overlap", if a == 0 { "target" } else { "local" }, b.saturating_sub(1)),
        Some(Fault::TypeIndex) if a == u64::MAX => format!("an indexed layout's lists changed while the call moved data (written during the call): {b} element(s) fell outside their buffer and were not moved"),
        Some(Fault::TypeIndex) => format!("the indexed layout's firsts go from {b} at block {a} to {c} after it: they must start at 0 and never decrease"),
        Some(Fault::TypedThroughHost) => format!("typed transfers to rank {a} go through the host, in pieces of at most half the staging area ({} bytes), but one element has {b} bytes: move it untyped", dcuda_device::abi::STAGE_HALF),
        Some(Fault::Aborted) => format!("the rank kernel aborted the run with code {a} (values {b}, {c}, {d})"),
        Some(Fault::CollectivePending) if a == 1 => "the rank body ended with an allreduce_start not finished: give its handle to allreduce_finish".to_string(),
        Some(Fault::CollectivePending) => "an allreduce_start of this rank is pending: finish it (allreduce_finish) before any other collective, barrier or window call".to_string(),
        Some(Fault::TooManyPutTargets) => format!("no put target slot is free: at most {a} put targets may be live on a rank at once; free those you are done with (free_put_target, or win_free of their window)"),
        Some(Fault::StalePutTarget) => format!("the put target handle is stale: its slot {a} was freed (free_put_target, or win_free of its window); make a new one with put_target"),
        Some(Fault::PutTargetTooShort) => format!("the source has {a} elements, but the put target at rank {c} holds {b}: a put to a target writes at most the count it was made with"),
        Some(Fault::TraceUnbalanced) => "trace_end without an open phase: every trace_end closes the phase of an earlier trace_begin".to_string(),
        Some(Fault::MessagePartial) => format!("the message from rank {c} with tag {d} has {a} bytes, not a whole number of the receive buffer's {b}-byte elements: sender and receiver must use the same element type"),
        Some(Fault::MatchedAcrossProcesses) => "matched windows (win_create_matched) are limited to the ranks of one process: use the device communicator, or counted notifications on the world".into(),
        None => format!("fault {} with values {:?}", e.fault, e.values),
    };
    format!("rank {}: {call}: {detail}", e.rank)
}

/// What the watchdog says about one waiting rank.
pub(crate) fn describe_wait(rank: u32, s: &WaitStatus) -> String {
    let what = match Call::from_u32(s.state.wrapping_sub(1)) {
        Some(Call::WaitNotifications) => format!(
            "wait_notifications(tag {}, count {}): {} available",
            s.a, s.b, s.seen as i32
        ),
        Some(Call::Barrier) => format!("barrier over {} ranks: {} arrived", s.a, s.seen),
        Some(Call::Allreduce | Call::Bcast) => format!(
            "{} over {} ranks of this device: {} arrived",
            Call::from_u32(s.state - 1)
                .map(Call::name)
                .unwrap_or("collective"),
            s.a,
            s.seen
        ),
        Some(Call::WaitMatch) => {
            let any = |v: u32| {
                if v == u32::MAX {
                    "any".to_string()
                } else {
                    v.to_string()
                }
            };
            format!(
                "wait_match(source {}, tag {}, count {}): {} match",
                any(s.c),
                any(s.a),
                s.b,
                s.seen
            )
        }
        Some(Call::PutNotify) => format!(
            "put_notify to rank {} (window {}, tag {}): its matching log is full",
            s.c, s.a, s.b
        ),
        Some(Call::TestNotifications) => format!(
            "test_notifications(tag {}, count {}) keeps failing: {} available",
            s.a, s.b, s.seen as i32
        ),
        Some(Call::TestMatch) => format!(
            "test_match(tag {}, count {}) keeps failing: {} match",
            if s.a == u32::MAX {
                "any".to_string()
            } else {
                s.a.to_string()
            },
            s.b,
            s.seen
        ),
        Some(Call::HostCall) => format!("a host call (op {}): waiting for the host", s.a),
        Some(Call::Send) if s.c == 2 => format!(
            "send(tag {}) to rank {} of another process: waiting for the host to read the message",
            s.a, s.b
        ),
        Some(Call::Send) => format!(
            "send(tag {}) to rank {}: waiting for the receiver to receive the message (rendezvous)",
            s.a, s.b
        ),

        Some(call @ (Call::Recv | Call::Probe | Call::Iprobe)) => {
            let any = |v: u32| match v {
                u32::MAX => "any".to_string(),
                v => v.to_string(),
            };
            format!(
                "{}(source {}, tag {}) on the communicator of context {}: no such message arrived{}",
                call.name(),
                any(s.b),
                any(s.a),
                s.c,
                if call == Call::Iprobe { " (it keeps polling)" } else { "" }
            )
        }
        Some(other) => format!("{} ({}, {}, {})", other.name(), s.a, s.b, s.c),
        None => format!("state {}", s.state),
    };
    format!("  rank {rank}: {what}")
}

fn show(arg: &LogArg) -> String {
    match arg {
        LogArg::Unsigned(v) => v.to_string(),
        LogArg::Signed(v) => v.to_string(),
        LogArg::Float(v) => v.to_string(),
        LogArg::Bool(v) => v.to_string(),
    }
}

/// Fills the `{...}` placeholders of `format` with `args`, in order (`{{`
/// and `}}` are braces); a count mismatch is shown in the text.
pub(crate) fn format_log(format: &str, args: &[LogArg]) -> String {
    let mut out = String::new();
    let mut args = args.iter();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
                match args.next() {
                    Some(a) => out.push_str(&show(a)),
                    None => out.push_str("{missing argument}"),
                }
            }
            c => out.push(c),
        }
    }
    let extra = args.count();
    if extra > 0 {
        out.push_str(&format!(" [{extra} more argument(s)]"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_placeholders_in_order() {
        let args = [
            LogArg::Unsigned(3),
            LogArg::Signed(-2),
            LogArg::Float(1.5),
            LogArg::Bool(true),
        ];
        assert_eq!(
            format_log("a={} b={:?} c={} d={} {{x}}", &args),
            "a=3 b=-2 c=1.5 d=true {x}"
        );
    }

    #[test]
    fn shows_argument_count_mismatches() {
        assert_eq!(
            format_log("{} {}", &[LogArg::Unsigned(1)]),
            "1 {missing argument}"
        );
        assert_eq!(
            format_log("none", &[LogArg::Unsigned(1)]),
            "none [1 more argument(s)]"
        );
    }

    #[test]
    fn log_arguments_round_trip() {
        for a in [
            LogArg::Unsigned(u64::MAX),
            LogArg::Signed(i64::MIN),
            LogArg::Float(-0.25),
            LogArg::Bool(false),
        ] {
            let (kind, bits) = a.encode();
            assert_eq!(LogArg::decode(kind, bits), Some(a));
        }
    }

    #[test]
    fn wrapped_negative_offsets_are_shown_as_such() {
        let e = ErrorRecord {
            call: Call::Put as u32 + 1,
            rank: 0,
            fault: Fault::OutOfBounds as u32,
            _pad: 0,
            values: [u64::MAX, 16, 3, 1],
        };
        assert_eq!(
            describe_error(&e),
            "rank 0: put: elements 18446744073709551615 (that is -1)..0 are outside the target window of rank 3, which has 16 elements"
        );
    }

    #[test]
    fn reserved_tags_are_named_as_such() {
        let e = ErrorRecord {
            call: Call::Notify as u32 + 1,
            rank: 1,
            fault: Fault::TagReserved as u32,
            _pad: 0,
            values: [300, 0, 0, 0],
        };
        assert_eq!(
            describe_error(&e),
            "rank 1: notify: tag 300 is reserved for the library's own traffic (256..640); user tags are 0..256"
        );
    }
}
