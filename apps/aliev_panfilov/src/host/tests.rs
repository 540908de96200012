//! The host side's unit tests: options, the reference and check, the report.
use super::reference::{reference, Grid};
use super::*;
use crate::layout::Fields;
use crate::walk::Walking;
use std::vec::Vec;

fn options(args: &[&str]) -> Result<Options, String> {
    Options::from_args(args.iter().map(|a| a.to_string()), RANKS, RANKS_WALK)
}

#[test]
fn rank_grids_use_the_most_ranks_then_tiles_four_times_as_wide() {
    assert_eq!(rank_grid(4, 100, 100), (1, 4)); // 100 × 25
    assert_eq!(rank_grid(6, 300, 200), (2, 3)); // 150 × 67
    assert_eq!(rank_grid(7, 100, 100), (1, 7)); // all seven, one above another
    assert_eq!(rank_grid(132, 2048, 2048), (6, 22)); // 341 × 93
    assert_eq!(rank_grid(8, 4, 100), (1, 8));
    assert_eq!(rank_grid(8, 5, 6), (2, 3)); // no tile under 2 × 2: six of eight
}

#[test]
fn layouts_place_every_rank_once_and_tile_the_grid() {
    let o = options(&["--nx", "29", "--ny", "23", "--procs-x", "2"]).unwrap();
    let l = o.layout(4, 6).unwrap();
    assert_eq!((l.procs_x, l.procs_y, l.ranks_x * l.ranks_y), (2, 2, 6));
    let mut points = 0;
    for rank in 0..24 {
        let at = l.position(rank);
        assert_eq!(l.rank_at(at), rank);
        let ((c0, c1), (r0, r1)) = l.tile(at);
        points += (c1 - c0) * (r1 - r0);
        // The tile lies in its process's part, at its offset there.
        let ((pc0, pc1), (pr0, pr1)) = l.part(l.process_of(at));
        assert!(pc0 <= c0 && c1 <= pc1 && pr0 <= r0 && r1 <= pr1);
        assert_eq!(l.rect(at).x0, c0 - pc0 + 1);
    }
    assert_eq!(points, 29 * 23);
    assert_eq!(l.fields((0, 0)).edges, Fields::WEST | Fields::NORTH);
    assert_eq!(l.fields((1, 1)).edges, Fields::EAST | Fields::SOUTH);
}

#[test]
fn walks_are_chosen_by_name() {
    assert_eq!(options(&[]).unwrap().walking, RANKS_WALK);
    assert_eq!(
        options(&["--walk", "stride"]).unwrap().walking,
        Walking::Stride
    );
    assert_eq!(
        options(&["--walk", "claims"]).unwrap().walking,
        Walking::Claims
    );
    let err = options(&["--walk", "diagonal"]).unwrap_err();
    assert!(
        err.starts_with("--walk: `diagonal` is not one of claims, stride;"),
        "{err}"
    );
    assert_eq!(
        options(&["--walk", "stride", "--batch", "4"])
            .unwrap()
            .batch,
        4
    );
    let err = options(&["--batch", "4"]).unwrap_err();
    assert_eq!(
        err,
        "--batch 4 needs --walk stride: a batch is how the stride walk loads points"
    );
    let err = options(&["--walk"]).unwrap_err();
    assert!(err.starts_with("--walk needs a value;"), "{err}");
    assert!(options(&["--ahead"]).unwrap().ahead);
    let err = options(&["--walk", "stride", "--ahead"]).unwrap_err();
    assert_eq!(
        err,
        "--ahead needs --walk claims: the stride walk does not ask ahead"
    );
}

#[test]
fn check_finds_a_changed_point() {
    let o = options(&["--nx", "9", "--ny", "6", "--iters", "30"]).unwrap();
    let l = o.layout(2, 1).unwrap();
    let want = reference(&o);
    let (mut e, r) = want.part(&l, (0, 1));
    assert_eq!(check(&o, &l, (0, 1), &e, &r), Ok(()));
    e[2 * 11 + 5] += 1e-9;
    let err = check(&o, &l, (0, 1), &e, &r).unwrap_err();
    assert!(err.starts_with("e at x 4, y 4:"), "{err}");
}

#[test]
fn the_wave_moves() {
    let o = options(&["--size", "16", "--iters", "200"]).unwrap();
    let start = Grid::initial(16, 16);
    let end = reference(&o);
    assert_ne!(start.e, end.e);
    assert!(end.e.iter().chain(&end.r).all(|v| v.is_finite()));
}

#[test]
fn the_csv_row_matches_its_header() {
    let outcome = {
        let options = options(&["--csv"]).unwrap();
        Outcome {
            run: Run {
                program: "aliev_panfilov".into(),
                backend: "emulator".into(),
                processes: 1,
                units: 4,
                unit: "ranks",
                seconds: 0.5,
                checked: "not checked".into(),
            },
            layout: options.layout(1, 4).unwrap(),
            options,
        }
    };
    let text = outcome.render().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let fields = |l: &str| l.split(',').count();
    assert_eq!(fields(lines[0]), fields(lines[1]), "{text}");
    assert!(
        lines[0].contains("batch,max_registers,walk,ahead"),
        "{text}"
    );
    assert!(lines[1].ends_with(",claims,false"), "{text}");
}
