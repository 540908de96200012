//! What a program prints of a measured run: the parts every application
//! reports, and its CSV row.

use dcuda::{RankInfo, Runtime};
use std::string::{String, ToString};

/// The parts of a measured run that every program reports, beside its own
/// options and results.
#[derive(Clone, Debug)]
pub struct Run {
    /// The program and its variant.
    pub program: String,
    /// Where it ran (`gpu` or `emulator`).
    pub backend: String,
    /// Processes (GPUs).
    pub processes: u32,
    /// Ranks or blocks per process.
    pub units: u32,
    /// What the units are: "ranks" or "blocks".
    pub unit: &'static str,
    /// Seconds of the measured loop, from the device clock.
    pub seconds: f64,
    /// "correct", "not checked", or why not.
    pub checked: String,
}

impl Run {
    /// A run on `processes` processes of `units` `unit` ("ranks" or
    /// "blocks") each.
    pub fn new(
        program: &str,
        rt: &Runtime,
        (processes, units, unit): (u32, u32, &'static str),
        seconds: f64,
        checked: impl Into<String>,
    ) -> Run {
        Run {
            program: program.into(),
            backend: backend_name(rt),
            processes,
            units,
            unit,
            seconds,
            checked: checked.into(),
        }
    }

    /// A dcuda program's run: its process's ranks, as `info` gives them.
    pub fn of_ranks(
        program: &str,
        rt: &Runtime,
        info: &RankInfo,
        seconds: f64,
        checked: impl Into<String>,
    ) -> Run {
        let shape = (info.process_count, info.ranks_on_device, "ranks");
        Run::new(program, rt, shape, seconds, checked)
    }

    /// A baseline's run: `blocks` blocks a launch on each of `processes`.
    pub fn of_blocks(
        program: &str,
        rt: &Runtime,
        (processes, blocks): (u32, u32),
        seconds: f64,
        checked: impl Into<String>,
    ) -> Run {
        Run::new(program, rt, (processes, blocks, "blocks"), seconds, checked)
    }

    /// The CSV header and row of most programs: program, backend,
    /// processes, units, then `rest`.
    pub fn csv_row(&self, rest: &[(&str, String)]) -> Result<String, String> {
        let mut columns = std::vec![
            ("program", self.program.clone()),
            ("backend", self.backend.clone()),
            ("processes", self.processes.to_string()),
            ("units", self.units.to_string()),
        ];
        columns.extend_from_slice(rest);
        csv_columns(&columns)
    }
}

/// The backend's name as the programs print it (`gpu`, `emulator`).
fn backend_name(rt: &Runtime) -> String {
    std::format!("{:?}", rt.backend()).to_lowercase()
}

/// A CSV header and one row, as the programs print with `--csv`, from
/// `(column, value)` pairs: a header and a row written apart can drift.
pub fn csv_columns(columns: &[(&str, String)]) -> Result<String, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(columns.iter().map(|c| c.0))
        .and_then(|_| w.write_record(columns.iter().map(|c| c.1.as_str())))
        .map_err(|e| e.to_string())?;
    let bytes = w.into_inner().map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_quoted_under_its_header() {
        assert_eq!(
            csv_columns(&[("a", "1".into()), ("b c", "x,y".into())]).unwrap(),
            "a,b c\n1,\"x,y\"\n"
        );
    }
}
