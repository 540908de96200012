//! Host-side transfer plans: every pattern and split against a host
//! reference under `mpirun -np 1` to `-np 3` (staged, as separate nodes,
//! and by peer copies between processes that map each other's memory),
//! and the errors of bad plans and bad calls in one process.

mod common;

use common::mpirun_outcome;
use dcuda::plan::{BroadcastPlan, Grid, HaloPlan, Part, Placement, ScatterPlan, Slice, Split};
use dcuda::Runtime;

/// Runs `plan_checks` under `mpirun -np procs`; its output.
fn plan_checks(procs: u32, env: &[(&str, &str)]) -> String {
    let (ok, text) = mpirun_outcome(procs, env!("CARGO_BIN_EXE_plan_checks"), &[], env);
    assert!(ok, "mpirun -np {procs} plan_checks {env:?} failed:\n{text}");
    for p in 0..procs {
        assert!(
            text.contains(&format!("plan_checks: process {p} of {procs}: ")),
            "process {p} did not finish:\n{text}"
        );
    }
    text
}

#[test]
fn every_pattern_on_one_two_and_three_processes() {
    for procs in 1..=3 {
        let text = plan_checks(procs, &[]);
        let same_node = "process 1 -> process 2: 4000 bytes, staged through host memory over the transport in pieces (same node, no peer copies)";
        assert!(procs < 3 || text.contains(same_node), "{text}");
        // The job's report says which path device data take.
        let path = "device data staged through host memory";
        assert!(
            procs < 2 || (text.contains("transport MPI, ") && text.contains(path)),
            "{text}"
        );
    }
}

/// Emulator processes that map each other's memory (`DCUDA_EMULATOR_IPC`,
/// as a node's GPUs through CUDA IPC): the root's peer copies.
#[test]
fn every_pattern_by_peer_copies() {
    for procs in [2, 3] {
        let text = plan_checks(procs, &[("DCUDA_EMULATOR_IPC", "1")]);
        assert!(
            text.contains("the root writes every process's copy through peer copies"),
            "{text}"
        );
        for q in 1..procs {
            let peer = format!("process 0 -> process {q}: 4000 bytes, peer copies:");
            assert!(text.contains(&peer), "no `{peer}`:\n{text}");
        }
    }
}

#[test]
fn every_pattern_with_each_process_a_node() {
    let text = plan_checks(2, &[("DCUDA_NODE", "process")]);
    let explained = "broadcast of 1000 u32 from process 0, parts of 1000 (a pipelined chain of processes, each forwarding every piece as it arrives; one copy a process, then device copies to its other ranks):
  process 0 -> process 0: 4000 bytes, device copies in the process
  process 0 -> process 1: 4000 bytes, staged through host memory over the transport in pieces
";
    assert!(text.contains(explained), "{text}");
}

#[test]
fn a_process_leaving_ends_the_plan_with_its_name() {
    let (ok, text) = mpirun_outcome(
        3,
        env!("CARGO_BIN_EXE_plan_checks"),
        &["leave-before-gather"],
        &[],
    );
    assert!(!ok, "a job with a process gone must fail:\n{text}");
    assert!(
        text.contains("plan_checks: process 1 leaves before the gather"),
        "{text}"
    );
    assert!(
        text.contains("process 1 left the job while process 0 waited for it in a transfer plan"),
        "process 0 must name the process it waited for:\n{text}"
    );
}

fn one_process() -> (Runtime, Placement) {
    let rt = Runtime::new().unwrap();
    let at = Placement::new(&rt, 3).unwrap();
    (rt, at)
}

fn err<T>(r: dcuda::Result<T>) -> String {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_plans_are_refused_naming_the_values() {
    let (_rt, at) = one_process();
    let e = err(ScatterPlan::<u32>::new(
        &at,
        Split::Block,
        10,
        0,
        Part::of(3),
    ));
    assert!(
        e.contains("rank 0 gets 4 elements (blocks of 10), but its part holds 3 from element 0"),
        "{e}"
    );
    let e = err(ScatterPlan::<u32>::new(
        &at,
        Split::Block,
        10,
        1,
        Part::of(4),
    ));
    assert!(e.contains("root process 1 is not in a job of 1"), "{e}");
    let overlap = Split::Counts {
        counts: vec![2, 2, 0],
        displs: vec![0, 1, 0],
    };
    let e = err(ScatterPlan::<u32>::new(&at, overlap, 10, 0, Part::of(4)));
    assert!(
        e.contains("rank 1's elements 1..3 overlap rank 0's 0..2"),
        "{e}"
    );
    let e = err(BroadcastPlan::<u32>::new(
        &at,
        10,
        0,
        Part::of(11).data_at(2),
    ));
    assert!(
        e.contains("a broadcast of 10 elements from process 0 into parts of 11 from element 2"),
        "{e}"
    );
    let s = |from_rank, from, to_rank, to| Slice::run(from_rank, from, to_rank, to, 2);
    let e = err(HaloPlan::<u32>::new(
        &at,
        8,
        vec![s(0, 0, 1, 4), s(2, 0, 1, 5)],
    ));
    assert!(
        e.contains("slices 0 and 1 collide in rank 1's part (4..6 and 5..7"),
        "{e}"
    );
    let e = err(HaloPlan::<u32>::new(&at, 8, vec![s(0, 0, 0, 1)]));
    assert!(
        e.contains("slices 0 and 0 collide") || e.contains("collide in rank 0"),
        "{e}"
    );
    let e = err(HaloPlan::<u32>::new(&at, 8, vec![s(0, 7, 1, 0)]));
    assert!(e.contains("leaves rank 0's part of 8"), "{e}");
    let e = err(HaloPlan::<u32>::new(&at, 8, vec![s(0, 0, 3, 0)]));
    assert!(e.contains("names rank 3 of 3"), "{e}");
    // Columns: a column written through another's cells, and one that
    // runs past its part.
    let column = |at_, to| Slice::run(0, at_, 1, to, 1).repeated(4, 4, 4);
    let e = err(HaloPlan::<u32>::new(
        &at,
        16,
        vec![column(0, 1), Slice::run(2, 0, 1, 9, 1)],
    ));
    assert!(
        e.contains("slices 0 and 1 collide in rank 1's part (9..10 and 9..10"),
        "{e}"
    );
    let e = err(HaloPlan::<u32>::new(&at, 15, vec![column(0, 3)]));
    assert!(e.contains("leaves rank 1's part of 15"), "{e}");
    let g = Grid {
        ranks_x: 2,
        ranks_y: 2,
        rows: 4,
        cols: 4,
        halo: 1,
        periodic: false,
    };
    let e = err(HaloPlan::<u32>::grid(&at, g));
    assert!(
        e.contains("for 3 ranks: the grid must hold every rank"),
        "{e}"
    );
    let g = Grid {
        ranks_x: 3,
        ranks_y: 1,
        rows: 4,
        cols: 1,
        halo: 2,
        periodic: false,
    };
    let e = err(HaloPlan::<u32>::grid(&at, g));
    assert!(e.contains("a tile at least the halo's width"), "{e}");
    let e = err(HaloPlan::<u32>::line(&at, 5, 2, false));
    assert!(
        e.contains("parts of 5 elements cannot hold two ghost zones of 2"),
        "{e}"
    );
}

#[test]
fn bad_calls_are_refused_naming_the_values() {
    let (rt, at) = one_process();
    let plan = ScatterPlan::<u32>::new(&at, Split::Cyclic(2), 10, 0, Part::of(4)).unwrap();
    let mut parts = rt.alloc::<u32>(12).unwrap();
    let e = err(plan.scatter(Some(&[0; 9]), &mut parts));
    assert!(
        e.contains("process 0 is the root of a plan of 10 elements, but its host array has 9"),
        "{e}"
    );
    let e = err(plan.scatter(None, &mut parts));
    assert!(e.contains("its host array is missing"), "{e}");
    let mut small = rt.alloc::<u32>(11).unwrap();
    let e = err(plan.scatter(Some(&[0; 10]), &mut small));
    assert!(
        e.contains("process 0's buffer has 11 elements, but its 3 ranks need 4 each (12)"),
        "{e}"
    );
    let e = err(plan.gather(&parts, Some(&mut [0; 11])));
    assert!(e.contains("its host array has 11"), "{e}");
}

#[test]
fn plans_fill_mapped_host_memory_too() {
    let (rt, at) = one_process();
    let plan = ScatterPlan::<u64>::new(&at, Split::Cyclic(2), 10, 0, Part::of(4)).unwrap();
    let mut parts = rt.alloc_mapped::<u64>(12).unwrap();
    let input: Vec<u64> = (100..110).collect();
    plan.scatter(Some(&input), &mut parts).unwrap();
    // Rank 0: blocks 0 and 3; rank 1: blocks 1 and 4; rank 2: block 2.
    let want = [100, 101, 106, 107, 102, 103, 108, 109, 104, 105, 0, 0];
    assert_eq!(parts.to_vec(), want);
    let mut back = vec![0u64; 10];
    plan.gather(&parts, Some(&mut back)).unwrap();
    assert_eq!(back, input);
    let explained = plan.explain();
    assert!(
        explained
            .contains("scatter/gather of 10 u64 (cyclic blocks of 2) at process 0, parts of 4"),
        "{explained}"
    );
    assert!(
        explained.contains("process 0 -> process 0: 80 bytes, device copies in the process"),
        "{explained}"
    );
}
