use super::*;
use crate::model::Model;
use crate::trace::{ProcessClock, Span};

fn span(rank: u32, name: &'static str, peer: Option<u32>, bytes: u64, us: u64) -> Span {
    Span {
        rank,
        process: rank / 2,
        start_ns: 1_000,
        end_ns: 1_000 + us * 1_000,
        kind: SpanKind::Call(name),
        peer,
        bytes,
        depth: 0,
    }
}

fn two_processes(spans: Vec<Span>) -> Trace {
    let clock = |first_rank| ProcessClock {
        first_rank,
        ranks: 2,
        ..ProcessClock::default()
    };
    Trace {
        spans,
        processes: vec![clock(0), clock(2)],
        dropped: 0,
        unclosed: 0,
    }
}

fn models() -> RouteModels {
    let mut m = RouteModels::default();
    let line = |alpha_us, gbs: f64| Model {
        alpha_us,
        beta_us_per_byte: 1e-3 / gbs,
        max_error: 0.0,
    };
    m.set(Hop::Device, line(2.0, 100.0));
    m.set(Hop::Peer, line(3.0, 50.0));
    m
}

#[test]
fn prices_each_call_on_its_route() {
    let t = two_processes(vec![
        // Same GPU: 2 + 1e5 B / 100 GB/s = 3 us.
        span(0, "put_notify", Some(1), 100_000, 4),
        // Across: 3 + 1e5 B / 50 GB/s = 5 us.
        span(0, "put", Some(2), 100_000, 6),
        // 8 B allreduce over 2 ranks a GPU, 2 processes: one step each.
        span(1, "allreduce", None, 8, 7),
        span(1, "wait_notifications", Some(0), 1, 9),
    ]);
    let p = predict(&t, &models(), Hop::Peer);
    assert_eq!((p.ranks, p.calls, p.unpriced), (2, 3, 0));
    let allreduce = (2.0 + 8e-5) + (3.0 + 1.6e-4);
    assert!(
        (p.predicted_us - (3.0 + 5.0 + allreduce) / 2.0).abs() < 1e-9,
        "{p:?}"
    );
    assert!(
        (p.measured_us - (4.0 + 6.0 + 7.0) / 2.0).abs() < 1e-9,
        "{p:?}"
    );
    assert!((p.waited_us - 9.0 / 2.0).abs() < 1e-9, "{p:?}");
    assert!(
        p.to_string()
            .contains("predicted 6.5 us by the model, measured 8.5 us"),
        "{p}"
    );
}

#[test]
fn a_route_without_a_model_is_counted_apart() {
    let t = two_processes(vec![
        span(0, "put", Some(2), 64, 5),
        span(0, "get", None, 64, 5),
        span(0, "win_create", None, 0, 50),
    ]);
    let p = predict(&t, &models(), Hop::Host);
    assert_eq!((p.calls, p.unpriced), (0, 2));
    assert_eq!(p.measured_us, 0.0);
}

#[test]
fn every_priced_name_is_a_call() {
    let names: Vec<&str> = (0..256)
        .filter_map(dcuda_device::abi::Call::from_u32)
        .map(|c| c.name())
        .collect();
    for name in POINT.iter().chain(COLLECTIVE) {
        assert!(names.contains(name), "`{name}` is no device call's name");
    }
}
