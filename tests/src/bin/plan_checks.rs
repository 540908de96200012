//! Checks of the host-side transfer plans; run it alone or under
//! `mpirun -np N` (`tests/tests/plans.rs` does, on the emulator). Every
//! process holds an uneven number of ranks and checks its own parts
//! against a host reference. Exits non-zero on the first mismatch.
//!
//! `plan_checks leave-before-gather`: process 1 exits before a gather to
//! process 0, which must fail naming it instead of waiting forever.

use dcuda::plan::{Grid, Part, Placement, ScatterPlan, Split};
use dcuda::Runtime;
use dcuda_tests::plans::{
    check_broadcast, check_grid, check_halo, check_scatter, splits, MANY_PIECES,
};

fn main() {
    dcuda::log::init(); // dcuda's messages to standard error (DCUDA_LOG filters)
    let rt = Runtime::new().expect("runtime");
    let process = rt.job().map_or(0, |j| j.process());
    let processes = rt.job().map_or(1, |j| j.processes());
    // Uneven: 2 ranks on even processes, 3 on odd ones.
    let at = Placement::new(&rt, 2 + process % 2).expect("placement");
    if std::env::args().nth(1).as_deref() == Some("leave-before-gather") {
        return leave_before_gather(&rt, &at);
    }
    let last = processes - 1;
    let mut checks = 0;
    let mut ok = |what: String, r: Result<(), String>| {
        if let Err(e) = r {
            panic!("plan_checks: process {process}: {what}: {e}");
        }
        checks += 1;
    };
    // The largest gives every rank several pieces.
    for n in [0, 1, 37, 2 * MANY_PIECES * at.ranks() as usize] {
        for split in splits(at.ranks(), n) {
            for root in [0, last] {
                ok(
                    format!("scatter {split} {n}"),
                    check_scatter(&rt, &at, split.clone(), n, root),
                );
            }
        }
        ok(format!("broadcast {n}"), check_broadcast(&rt, &at, n, last));
    }
    for halo in [1, 4, MANY_PIECES] {
        for periodic in [false, true] {
            ok(
                format!("halo {halo} {periodic}"),
                check_halo(&rt, &at, halo, periodic),
            );
        }
    }
    // Grids of 1 x R and of the ranks' factors, tiles of a few elements
    // and tiles whose halos take several pieces.
    let ranks = at.ranks();
    let x = (2..ranks).find(|&x| ranks.is_multiple_of(x)).unwrap_or(1);
    for (ranks_x, rows, cols, halo) in [
        (1, 4, 3, 1),
        (x, 6, 5, 2),
        (x, 2, 300_000, 1),
        (ranks / x, 300_000, 2, 2),
    ] {
        for periodic in [false, true] {
            // ANCHOR: grid
            let g = Grid {
                ranks_x,
                ranks_y: ranks / ranks_x,
                rows,
                cols,
                halo,
                periodic,
            };
            // ANCHOR_END: grid
            ok("grid halo".into(), check_grid(&rt, &at, g));
        }
    }
    if processes > 1 {
        // Processes that make different plans are told, naming both.
        let n = if process == 0 { 10 } else { 11 };
        let e = ScatterPlan::<u32>::new(&at, Split::Block, n, 0, Part::of(100)).err();
        let text = e.map(|e| e.to_string()).unwrap_or_default();
        let named = if process == 0 {
            "process 1 made another plan"
        } else {
            "process 0 made another plan"
        };
        ok(
            "mismatched plans".into(),
            match text.contains(named) && text.contains("a scatter of 10 u32") {
                true => Ok(()),
                false => Err(format!(
                    "expected an error naming the other process, got {text:?}"
                )),
            },
        );
        // And the job goes on.
        ok("after a mismatch".into(), check_broadcast(&rt, &at, 5, 0));
    }
    if process != 0 {
        // Process 0 makes one more plan below; the plan is collective.
        dcuda::plan::BroadcastPlan::<u32>::new(&at, 1000, 0, Part::of(1000)).expect("a plan");
    }
    if process == 0 {
        let plan =
            dcuda::plan::BroadcastPlan::<u32>::new(&at, 1000, 0, Part::of(1000)).expect("a plan");
        print!("{}", plan.explain());
    }
    println!("plan_checks: process {process} of {processes}: {checks} checks passed");
}

/// Process 1 leaves the job where the others gather to process 0.
fn leave_before_gather(rt: &Runtime, at: &Placement) {
    let n = 4 * MANY_PIECES * at.ranks() as usize;
    let plan = ScatterPlan::<u32>::new(at, Split::Block, n, 0, Part::of(n)).expect("a plan");
    let parts = rt
        .alloc::<u32>(at.ranks_of(at.process()).len() * n)
        .expect("parts");
    if at.process() == 1 {
        eprintln!("plan_checks: process 1 leaves before the gather");
        std::process::exit(3);
    }
    let mut out = vec![0u32; if at.process() == 0 { n } else { 0 }];
    let host = (at.process() == 0).then_some(&mut out[..]);
    match plan.gather(&parts, host) {
        Err(e) => panic!("plan_checks: process {}: {e}", at.process()),
        Ok(()) => println!("plan_checks: process {} gathered", at.process()),
    }
}
