//! The host side's unit tests: options, the reference and check, the report.
use super::*;

fn options(args: &[&str]) -> Result<Options, String> {
    Options::from_args(args.iter().map(|a| a.to_string()), RANKS)
}

#[test]
fn check_finds_a_changed_point() {
    let o = options(&["--nx", "9", "--ny", "7", "--nz", "2", "--iters", "3"]).unwrap();
    let band = Band::of_ranks(&o, 1, 1, 2);
    assert_eq!((band.start, band.end), (3, 7));
    let want = reference(&o);
    let w = o.width();
    // The band's rows and halos: grid rows 2 to 7 and 0 (periodic).
    let mut mine = want[2 * w..7 * w].to_vec();
    mine.extend_from_slice(&want[..w]);
    assert_eq!(check(&o, &band, &mine), Ok(()));
    mine[2 * w + 9 + 4] += 1e-12;
    let err = check(&o, &band, &mine).unwrap_err();
    assert!(err.starts_with("point x 4, y 4, z 1:"), "{err}");
}

#[test]
fn the_reference_diffuses_and_keeps_the_frame() {
    let o = options(&["--nx", "12", "--ny", "6", "--nz", "1", "--iters", "4"]).unwrap();
    let whole = Band::of_ranks(&o, 0, 1, 1);
    let start = whole.initial()[12..7 * 12].to_vec();
    let end = reference(&o);
    let spread = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>();
    assert!(spread(&end) < spread(&start), "diffusion smooths the field");
    for y in 0..6 {
        for x in [0, 1, 10, 11] {
            assert_eq!(end[y * 12 + x], start[y * 12 + x], "frame at x {x}, y {y}");
        }
    }
}

#[test]
fn bad_options_are_named() {
    assert!(options(&["--nx", "4"]).unwrap_err().contains("nx ≥ 5"));
    assert!(options(&["--nx", "65536", "--nz", "32768"])
        .unwrap_err()
        .contains("65536 × 32768 = 2147483648 points"));
    assert!(options(&["--nx", "65536", "--nz", "32767"]).is_ok());
    assert!(options(&["--batch", "3"])
        .unwrap_err()
        .contains("1, 2, 4 or 8"));
    assert!(options(&["--threads", "96"])
        .unwrap_err()
        .contains("power of two"));
    assert!(options(&["--bogus"])
        .unwrap_err()
        .contains("unknown option `--bogus`"));
    assert!(options(&["--dlcm", "cs"])
        .unwrap_err()
        .starts_with("--dlcm: `cs` is not one of ca, cg"));
    assert!(
        options(&["--nx", "16", "--ny", "8", "--nz", "2", "--iters", "3"])
            .unwrap()
            .check
    );
    assert!(
        !options(&[]).unwrap().check,
        "the default grid is not checked"
    );
}

#[test]
fn the_csv_row_matches_its_header() {
    let outcome = Outcome {
        run: Run {
            program: "hdiff".into(),
            backend: "emulator".into(),
            processes: 1,
            units: 4,
            unit: "ranks",
            seconds: 0.5,
            checked: "not checked".into(),
        },
        options: options(&["--csv"]).unwrap(),
    };
    let text = outcome.render().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let fields = |l: &str| l.split(',').count();
    assert_eq!(fields(lines[0]), fields(lines[1]), "{text}");
    assert!(lines[0].contains("batch,max_registers"), "{text}");
    assert!(
        lines[0].ends_with(",dlcm") && lines[1].ends_with(",default"),
        "{text}"
    );
}

#[test]
fn dlcm_names_where_loads_are_cached() {
    let caching = |d| options(&["--dlcm", d]).unwrap().caching;
    assert_eq!(caching("ca"), Some(LoadCaching::L1AndL2));
    assert_eq!(caching("cg"), Some(LoadCaching::L2Only));
    assert_eq!(options(&[]).unwrap().caching, None);
    let loads = |args: &[&str]| options(args).unwrap().load_options().caching;
    assert_eq!(loads(&[]), LoadCaching::L2Only);
    assert_eq!(loads(&["--dlcm", "ca"]), LoadCaching::L1AndL2);
}

#[test]
fn bands_of_several_rows_cache_their_loads_in_l1() {
    assert_eq!(rank_caching(1), LoadCaching::L2Only);
    assert_eq!(rank_caching(2), LoadCaching::L1AndL2);
    assert_eq!(rank_caching(10), LoadCaching::L1AndL2);
}

#[test]
fn ranks_take_the_threads_that_split_the_rows_evenly() {
    // An H200 at 64 registers: 132, 264 and 528 ranks of 1024, 512, 256.
    let h200 = |threads: u32| 132 * (1024 / threads);
    assert_eq!(
        balanced_threads(1280, h200),
        1024,
        "10 rows at most, 9.7 the mean"
    );
    assert_eq!(balanced_threads(320, h200), 256, "a row each");
    assert_eq!(balanced_threads(160, h200), 512, "a row each");
    assert_eq!(balanced_threads(2560, h200), 1024);
    // Nothing splits well: the most even.
    assert_eq!(balanced_threads(7, |_| 4), 1024);
    assert_eq!(balanced_threads(0, h200), 1024);
    // Threads of which no rank fits are passed over.
    let no_1024 = |threads: u32| if threads == 1024 { 0 } else { h200(threads) };
    assert_eq!(balanced_threads(1280, no_1024), 512);
}
