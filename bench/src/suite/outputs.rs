//! What `bench` writes besides its table: the CSV, the plots and the
//! run's environment.

use super::Suite;
use crate::report::{write_csv, Machine, Row};
use crate::table::write_plot;
use std::path::Path;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The `(x, median)` points of the rows of `group` whose measure starts
/// with `prefix`.
fn series(rows: &[Row], group: &str, prefix: &str) -> Vec<(f64, f64)> {
    rows.iter()
        .filter(|r| r.group == group && r.measure.starts_with(prefix))
        .map(|r| (r.x, r.value.median))
        .collect()
}

/// The CSV, the plots and the run's environment.
pub fn write_outputs(dir: &Path, title: &str, machine: &Machine, rows: &[Row]) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    write_csv(&dir.join("results.csv"), rows, machine)?;
    let scaling = series(rows, "scaling", "notified put");
    write_plot(
        &dir.join("latency.svg"),
        (
            "Notified put 4 B, half round trip",
            "ranks on the device (log2)",
            "us (median)",
        ),
        true,
        &[("notified put".into(), scaling)],
    )?;
    let sized = [
        (
            "notified put".to_string(),
            series(rows, "size", "notified put"),
        ),
        (
            "raw ping-pong with a block copy".to_string(),
            series(rows, "size", "raw ping-pong"),
        ),
    ];
    write_plot(
        &dir.join("latency-size.svg"),
        (
            "Half round trip against payload",
            "bytes (log2)",
            "us (median)",
        ),
        true,
        &sized,
    )?;
    let curve = |name: &str, raw: bool, one: bool| {
        let points = rows.iter().filter(|r| {
            r.group == "bandwidth"
                && r.measure.starts_with("raw") == raw
                && (r.measure.contains(" 1 block,") || r.measure.contains(" 1 rank,")) == one
        });
        (
            name.to_string(),
            points.map(|r| (r.x, r.value.median)).collect(),
        )
    };
    let one = [
        curve("raw copy, 1 block", true, true),
        curve("put, 1 rank", false, true),
    ];
    write_plot(
        &dir.join("bandwidth-one-rank.svg"),
        (
            "Put bandwidth of one rank",
            "bytes (log2)",
            "GB/s (median of 5)",
        ),
        true,
        &one,
    )?;
    let curves = [
        one[0].clone(),
        one[1].clone(),
        curve("raw copy, as many blocks as senders", true, false),
        curve("put, many ranks", false, false),
    ];
    write_plot(
        &dir.join("bandwidth.svg"),
        (
            "Put bandwidth",
            "bytes per sender (log2)",
            "GB/s (median of 5)",
        ),
        true,
        &curves,
    )?;
    let date = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .output();
    let date = date
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let commit = &machine.commit;
    let env = format!("{title}\ndate: {date}\ncommit: {commit}\nrepetitions: {} launches per latency, 5 trials per bandwidth\n", Suite::REPETITIONS);
    std::fs::write(dir.join("environment.txt"), env)?;
    println!(
        "wrote {}/results.csv, latency.svg, latency-size.svg, bandwidth.svg, bandwidth-one-rank.svg, environment.txt",
        dir.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::summary;

    #[test]
    fn writes_the_csv_the_plots_and_the_environment() {
        let row =
            |group, measure: &str, x: f64| Row::new(group, measure, "us", summary(vec![x])).x(x);
        let rows = [
            row("scaling", "notified put 4 B, 2 ranks", 2.0),
            row("size", "notified put, 4 B", 4.0),
            row("size", "raw ping-pong with a block copy, 4 B", 4.0),
            row("bandwidth", "raw copy, 1 block, 4 B", 4.0),
            row("bandwidth", "put from 1 rank, 4 B", 4.0),
        ];
        let dir = std::env::temp_dir().join(format!("dcuda-outputs-{}", std::process::id()));
        write_outputs(&dir, "title", &Machine::new("H100"), &rows).unwrap();
        for f in [
            "results.csv",
            "latency.svg",
            "latency-size.svg",
            "bandwidth.svg",
            "bandwidth-one-rank.svg",
            "environment.txt",
        ] {
            assert!(dir.join(f).is_file(), "{f}");
        }
        let env = std::fs::read_to_string(dir.join("environment.txt")).unwrap();
        assert!(
            env.starts_with("title\ndate: ") && env.contains("commit: "),
            "{env}"
        );
        assert_eq!(series(&rows, "size", "notified put"), vec![(4.0, 4.0)]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
