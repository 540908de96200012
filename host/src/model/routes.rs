//! One model per route a transfer can take, read from and written to CSV
//! (`route,alpha_us,beta_us_per_byte,max_error`, routes `device`, `peer`
//! and `host`), so that the benchmarks that fit them and the runs that use
//! them agree on one format.

use super::Model;
use crate::error::{Error, Result};

/// The route between two ranks, as the model tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Hop {
    /// Two ranks of one GPU.
    Device,
    /// Two GPUs of one node (the direct route: NVLink or PCIe).
    Peer,
    /// Through the hosts (other nodes, or no direct route).
    Host,
}

impl Hop {
    /// Its name in the CSV.
    pub fn name(self) -> &'static str {
        match self {
            Hop::Device => "device",
            Hop::Peer => "peer",
            Hop::Host => "host",
        }
    }

    fn of(name: &str) -> Option<Hop> {
        [Hop::Device, Hop::Peer, Hop::Host]
            .into_iter()
            .find(|h| h.name() == name)
    }
}

/// The models of the routes a run may take; a route without one has no
/// prediction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RouteModels {
    models: Vec<(Hop, Model)>,
}

const HEADER: &str = "route,alpha_us,beta_us_per_byte,max_error";

impl RouteModels {
    /// The model of `hop`, if any.
    pub fn get(&self, hop: Hop) -> Option<Model> {
        self.models.iter().find(|(h, _)| *h == hop).map(|&(_, m)| m)
    }

    /// Sets the model of `hop`.
    pub fn set(&mut self, hop: Hop, model: Model) {
        self.models.retain(|(h, _)| *h != hop);
        self.models.push((hop, model));
        self.models.sort_by_key(|(h, _)| *h);
    }

    /// The CSV text, a header and a line a route.
    pub fn to_csv(&self) -> String {
        let mut out = format!("{HEADER}\n");
        for (hop, m) in &self.models {
            out += &format!(
                "{},{},{},{}\n",
                hop.name(),
                m.alpha_us,
                m.beta_us_per_byte,
                m.max_error
            );
        }
        out
    }

    /// Adds the routes of CSV `text` (from `what`, for errors); a route
    /// named twice keeps the last.
    pub fn add_csv(&mut self, text: &str, what: &str) -> Result<()> {
        let bad = |line: usize, why: String| Error::Model {
            reason: format!("{what}, line {line}: {why} (expected `{HEADER}`)"),
        };
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        match lines.next() {
            Some((_, h)) if h.trim() == HEADER => {}
            Some((n, h)) => return Err(bad(n + 1, format!("header `{h}`"))),
            None => return Err(bad(1, "no header".into())),
        }
        for (n, line) in lines {
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            let [route, alpha, beta, error] = fields[..] else {
                return Err(bad(n + 1, format!("{} fields", fields.len())));
            };
            let hop = Hop::of(route)
                .ok_or_else(|| bad(n + 1, format!("route `{route}` (device, peer or host)")))?;
            let number = |v: &str| -> Result<f64> {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| bad(n + 1, format!("`{v}` is not a number of at least 0")))
            };
            let model = Model {
                alpha_us: number(alpha)?,
                beta_us_per_byte: number(beta)?,
                max_error: number(error)?,
            };
            self.set(hop, model);
        }
        Ok(())
    }

    /// The routes of the files `paths` (comma-separated, as `DCUDA_MODEL`
    /// takes them).
    pub fn read(paths: &str) -> Result<RouteModels> {
        let mut models = RouteModels::default();
        for path in paths.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
                what: format!("reading the model file {path} (DCUDA_MODEL)"),
                source: e,
            })?;
            models.add_csv(&text, path)?;
        }
        Ok(models)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_names_what_is_wrong() {
        let mut m = RouteModels::default();
        let put = Model {
            alpha_us: 1.5,
            beta_us_per_byte: 1e-5,
            max_error: 0.04,
        };
        m.set(Hop::Peer, put);
        m.set(Hop::Device, put);
        let mut back = RouteModels::default();
        back.add_csv(&m.to_csv(), "test").unwrap();
        assert_eq!(back, m);
        assert_eq!(back.get(Hop::Peer), Some(put));
        assert_eq!(back.get(Hop::Host), None);
        let err = |text: &str| {
            let mut m = RouteModels::default();
            m.add_csv(text, "f.csv").unwrap_err().to_string()
        };
        assert!(
            err("a,b\n").contains("f.csv, line 1: header `a,b`"),
            "{}",
            err("a,b\n")
        );
        let wrong = format!("{HEADER}\nnvlink,1,2,0\n");
        assert!(
            err(&wrong).contains("line 2: route `nvlink`"),
            "{}",
            err(&wrong)
        );
        let wrong = format!("{HEADER}\npeer,-1,2,0\n");
        assert!(
            err(&wrong).contains("`-1` is not a number"),
            "{}",
            err(&wrong)
        );
        let wrong = format!("{HEADER}\npeer,1,2\n");
        assert!(err(&wrong).contains("3 fields"), "{}", err(&wrong));
    }
}
