//! The route models the benchmarks fit, written where `DCUDA_MODEL` reads
//! them: `model-device.csv` from `bench`, `model-peer.csv` or
//! `model-host.csv` from `bench_world`.

use crate::model::{Hop, Model, RouteModels};
use std::path::Path;

/// Writes `dir/model-HOP.csv` with `models`' entry named `name` (a fitted
/// notified put) as route `hop`; nothing when there is no such entry.
pub fn write(dir: &Path, hop: Hop, name: &str, models: &[(String, Model)]) -> std::io::Result<()> {
    let Some((_, m)) = models.iter().find(|(n, _)| n == name) else {
        return Ok(());
    };
    let mut r = RouteModels::default();
    r.set(hop, *m);
    std::fs::write(dir.join(format!("model-{}.csv", hop.name())), r.to_csv())
}

/// Prints the fitted `models` under a line naming the routes (`what`).
pub fn print(what: &str, models: &[(String, Model)]) {
    println!("\nlatency model t = alpha + bytes / bandwidth ({what}):");
    let width = models.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    for (name, m) in models {
        println!(
            "  {name:<width$} alpha {:.3} us, bandwidth {:.2} GB/s, largest error {:.1}%",
            m.alpha_us,
            m.bandwidth_gbs(),
            m.max_error * 100.0
        );
    }
}
