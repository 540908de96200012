//! The rows of a benchmark run: each measurement's summary beside the
//! baseline it is compared with (measured in the same run), its target and,
//! where the seed thesis measured the same thing, the seed's figure. Rows
//! become a table line each and one CSV file (written with the `csv` crate).

use crate::stats::Summary;
use std::path::Path;

/// What a row is compared with: another row of the same run.
#[derive(Clone, Debug)]
pub struct Baseline {
    /// The baseline row's measure.
    pub measure: String,
    /// Its median.
    pub median: f64,
}

/// A target on the ratio median / baseline median.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// The ratio must be at most this (latency).
    AtMost(f64),
    /// The ratio must be at least this (bandwidth).
    AtLeast(f64),
}

/// The seed thesis's figure for the same measurement, for reference (other
/// hardware: never a ratio or a verdict).
#[derive(Clone, Copy, Debug)]
pub struct Seed {
    pub value: f64,
    pub source: &'static str,
}

/// One measurement.
#[derive(Clone, Debug)]
pub struct Row {
    pub group: &'static str,
    pub measure: String,
    /// The plotted coordinate (bytes, ranks, threads...).
    pub x: f64,
    /// Payload bytes, where there is one.
    pub bytes: Option<u64>,
    /// Alignment of every payload slice in bytes, where there is one.
    pub align: Option<u64>,
    pub unit: &'static str,
    pub value: Summary,
    pub baseline: Option<Baseline>,
    pub target: Option<Target>,
    pub seed: Option<Seed>,
}

impl Row {
    /// A row with only a measure and its summary.
    pub fn new(
        group: &'static str,
        measure: impl Into<String>,
        unit: &'static str,
        value: Summary,
    ) -> Row {
        Row {
            group,
            measure: measure.into(),
            x: 0.0,
            bytes: None,
            align: None,
            unit,
            value,
            baseline: None,
            target: None,
            seed: None,
        }
    }

    pub fn x(mut self, x: f64) -> Row {
        self.x = x;
        self
    }

    pub fn bytes(mut self, bytes: u64, align: u64) -> Row {
        self.bytes = Some(bytes);
        self.align = Some(align);
        self
    }

    /// Compared with `base`'s median.
    pub fn against(mut self, base: &Row) -> Row {
        self.baseline = Some(Baseline {
            measure: base.measure.clone(),
            median: base.value.median,
        });
        self
    }

    pub fn target(mut self, target: Target) -> Row {
        self.target = Some(target);
        self
    }

    pub fn seed(mut self, value: f64, source: &'static str) -> Row {
        self.seed = Some(Seed { value, source });
        self
    }

    /// Median over the baseline's median.
    pub fn ratio(&self) -> Option<f64> {
        self.baseline.as_ref().map(|b| self.value.median / b.median)
    }

    /// `met` or `missed` against the target; empty without one.
    pub fn verdict(&self) -> &'static str {
        match (self.target, self.ratio()) {
            (Some(Target::AtMost(t)), Some(r)) if r <= t => "met",
            (Some(Target::AtLeast(t)), Some(r)) if r >= t => "met",
            (Some(_), Some(_)) => "missed",
            _ => "",
        }
    }

    /// The row as a line of the table ([`header`] names the columns).
    pub fn line(&self) -> String {
        let ratio = self.ratio().map(|r| format!("{r:.2}x")).unwrap_or_default();
        let seed = self
            .seed
            .map(|s| format!("{:.2}", s.value))
            .unwrap_or_default();
        format!(
            "{:<10} {:<58} {:>10.3} {:>10.3} {:<5} {:>10} {:>7} {:<6} {:>6}",
            self.group,
            self.measure,
            self.value.median,
            self.value.p99,
            self.unit,
            self.baseline
                .as_ref()
                .map(|b| format!("{:.3}", b.median))
                .unwrap_or_default(),
            ratio,
            self.verdict(),
            seed,
        )
    }
}

/// The table's column names, aligned with [`Row::line`].
pub fn header() -> String {
    format!(
        "{:<10} {:<58} {:>10} {:>10} {:<5} {:>10} {:>7} {:<6} {:>6}",
        "group", "measure", "median", "p99", "unit", "baseline", "ratio", "target", "seed"
    )
}

/// Where a run was measured: a column of every CSV row, so that a row
/// read on its own still says it (versions and date: `environment.txt`).
#[derive(Clone, Debug)]
pub struct Machine {
    /// The device's name.
    pub device: String,
    /// The commit measured (`DCUDA_COMMIT`, set by the GPU scripts).
    pub commit: String,
}

impl Machine {
    /// `device`, with the commit from `DCUDA_COMMIT`.
    pub fn new(device: &str) -> Machine {
        let commit = std::env::var("DCUDA_COMMIT");
        Machine {
            device: device.to_string(),
            commit: commit.unwrap_or_else(|_| "unknown (set DCUDA_COMMIT)".into()),
        }
    }
}

/// The CSV columns.
const COLUMNS: [&str; 20] = [
    "group",
    "measure",
    "x",
    "bytes",
    "align",
    "unit",
    "median",
    "p99",
    "min",
    "max",
    "samples",
    "baseline",
    "baseline_median",
    "ratio",
    "target",
    "verdict",
    "seed",
    "seed_source",
    "device",
    "commit",
];

/// Writes `rows`, measured on `machine`, to `path` as CSV.
pub fn write_csv(path: &Path, rows: &[Row], machine: &Machine) -> Result<(), csv::Error> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record(COLUMNS)?;
    let opt = |v: Option<f64>| v.map(|v| format!("{v}")).unwrap_or_default();
    for r in rows {
        let target = match r.target {
            Some(Target::AtMost(t)) => format!("<={t}"),
            Some(Target::AtLeast(t)) => format!(">={t}"),
            None => String::new(),
        };
        w.write_record([
            r.group.to_string(),
            r.measure.clone(),
            format!("{}", r.x),
            r.bytes.map(|b| b.to_string()).unwrap_or_default(),
            r.align.map(|a| a.to_string()).unwrap_or_default(),
            r.unit.to_string(),
            format!("{}", r.value.median),
            format!("{}", r.value.p99),
            format!("{}", r.value.min),
            format!("{}", r.value.max),
            r.value.samples.to_string(),
            r.baseline
                .as_ref()
                .map(|b| b.measure.clone())
                .unwrap_or_default(),
            opt(r.baseline.as_ref().map(|b| b.median)),
            opt(r.ratio()),
            target,
            r.verdict().to_string(),
            opt(r.seed.map(|s| s.value)),
            r.seed.map(|s| s.source.to_string()).unwrap_or_default(),
            machine.device.clone(),
            machine.commit.clone(),
        ])?;
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::summary;

    #[test]
    fn ratio_verdict_and_csv() {
        let base = Row::new("latency", "raw", "us", summary(vec![1.0, 1.0, 1.0]));
        let row = Row::new(
            "latency",
            "put, \"4 B\"",
            "us",
            summary(vec![1.2, 1.3, 1.4]),
        )
        .against(&base)
        .target(Target::AtMost(1.25))
        .seed(2.4, "K80, digest 000 Table 5.1");
        assert_eq!(row.ratio(), Some(1.3));
        assert_eq!(row.verdict(), "missed");
        let bw = Row::new("bandwidth", "put", "GB/s", summary(vec![9.5]))
            .against(&Row::new("bandwidth", "copy", "GB/s", summary(vec![10.0])))
            .target(Target::AtLeast(0.9));
        assert_eq!(bw.verdict(), "met");
        let dir = std::env::temp_dir().join(format!("dcuda-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.csv");
        let machine = Machine {
            device: "H100".into(),
            commit: "abc1234".into(),
        };
        write_csv(&path, &[base, row], &machine).unwrap();
        let mut r = csv::Reader::from_path(&path).unwrap();
        assert_eq!(r.headers().unwrap().len(), COLUMNS.len());
        let recs: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        assert_eq!(recs.len(), 2);
        assert_eq!(&recs[1][1], "put, \"4 B\"");
        assert_eq!(&recs[1][14], "<=1.25");
        assert_eq!(&recs[1][15], "missed");
        assert_eq!(&recs[1][17], "K80, digest 000 Table 5.1");
        assert_eq!((&recs[0][18], &recs[0][19]), ("H100", "abc1234"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
