//! Traced runs on one device: the spans match the calls the kernel made,
//! nest as its phases do and lie inside the run on the host's clock; the
//! JSON, SVG and summary are written; full buffers and a `trace_end`
//! without a phase are reported.

use dcuda::Runtime;
use dcuda_tests::traced::{check_trace, predicted, run_traced, ROUNDS};

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("dcuda-trace-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn traced_ring_matches_its_calls() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    for ranks in [1u32, 3, 8] {
        let path = dir("ring").join(format!("ring-{ranks}.json"));
        let (trace, window) = run_traced(&rt, &module, (ranks, 4096, false), &path)
            .unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
        check_trace(&trace, (ranks, 1), window, Some(&path))
            .unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn the_model_prices_every_put_of_the_ring() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    let path = dir("predict").join("ring.json");
    let (trace, _) = run_traced(&rt, &module, (3, 4096, false), &path).unwrap();
    let p = predicted(&trace);
    // One put_notify a round per rank, each 1.69 us + 16 u64s at 5.5e-5.
    assert_eq!(
        (p.ranks, p.calls, p.unpriced),
        (3, 3 * ROUNDS as u64, 0),
        "{p:?}"
    );
    let each = 1.69 + 128.0 * 5.5e-5;
    assert!(
        (p.predicted_us - ROUNDS as f64 * each).abs() < 1e-9,
        "{p:?}"
    );
    assert!(p.measured_us > 0.0 && p.waited_us > 0.0, "{p:?}");
}

#[test]
fn full_trace_buffers_are_reported() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    let path = dir("full").join("full.json");
    let (trace, _) = run_traced(&rt, &module, (2, 4, false), &path).unwrap();
    // 33 spans per rank (6 per round, a barrier, the window), 4 kept.
    assert_eq!(trace.spans.len(), 8);
    assert_eq!(trace.dropped, 2 * 29);
    let summary = std::fs::read_to_string(path.with_extension("txt")).unwrap();
    assert!(summary.contains("58 spans dropped"), "{summary}");
}

#[test]
fn trace_end_without_a_phase_is_an_error() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    let path = dir("unbalanced").join("unbalanced.json");
    let err = run_traced(&rt, &module, (2, 4096, true), &path).unwrap_err();
    assert!(err.contains("trace_end without an open phase"), "{err}");
    assert!(err.contains("trace_end"), "{err}");
}
