//! The rows of `bench_world`'s run: kept, printed by process 0, and drawn
//! as latency curves.

use crate::peer_baseline::NVSHMEM_BLOCK;
use crate::report::Row;

/// The rows of the run; process 0 prints each.
pub struct Rows {
    /// The route measured, printed before each row.
    pub route: &'static str,
    /// This process's world rank.
    pub me: u32,
    /// The rows so far.
    pub rows: Vec<Row>,
}

impl Rows {
    /// Keeps `row`, printed on process 0, and returns it.
    pub fn push(&mut self, row: Row) -> Row {
        if self.me == 0 {
            println!("{:<9} {}", self.route, row.line());
        }
        self.rows.push(row.clone());
        row
    }

    /// The latency rows by size of dcuda's put and NVSHMEM's, as curves.
    pub fn latency_curves(&self) -> Curves {
        let curve = |prefix: &str| -> Vec<(f64, f64)> {
            (self.rows.iter())
                .filter(|r| r.group == "size" && r.measure.starts_with(prefix))
                .map(|r| (r.x, r.value.median))
                .collect()
        };
        [
            ("dcuda notified put", PUT),
            ("NVSHMEM put-with-signal", NVSHMEM_BLOCK),
        ]
        .into_iter()
        .map(|(name, prefix)| (name.to_string(), curve(prefix)))
        .filter(|(_, c)| !c.is_empty())
        .collect()
    }
}

/// Named curves of `(bytes, value)` points.
pub type Curves = Vec<(String, Vec<(f64, f64)>)>;

/// The measure names of dcuda's notified put start with this.
pub const PUT: &str = "notified put,";
