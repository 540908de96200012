//! Cells of the benchmarks' tables and CSV files for values a run may lack
//! (a baseline that could not run), and the plot file of their curves.

use crate::plot;
use std::path::Path;

/// `v` right-aligned in `width` columns with 3 decimals, or `-`.
pub fn column(v: Option<f64>, width: usize) -> String {
    v.map(|v| format!("{v:>width$.3}"))
        .unwrap_or_else(|| format!("{:>width$}", "-"))
}

/// `v` with 4 decimals for a CSV cell, or an empty cell.
pub fn cell(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.4}")).unwrap_or_default()
}

/// Writes the named curves as an SVG line chart at `path` (`log_x`:
/// log2 of x).
pub fn write_plot(
    path: &Path,
    (title, x_label, y_label): (&str, &str, &str),
    log_x: bool,
    curves: &[(String, Vec<(f64, f64)>)],
) -> std::io::Result<()> {
    let series: Vec<(&str, Vec<(f64, f64)>)> = curves
        .iter()
        .map(|(n, s)| (n.as_str(), s.clone()))
        .collect();
    std::fs::write(path, plot::lines(title, x_label, y_label, log_x, &series))
}
