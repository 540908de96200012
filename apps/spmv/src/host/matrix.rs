//! The matrices the programs make (so no data files are needed), their
//! rows in CSR form, and the CPU reference.

use super::Options;
use std::format;
use std::string::String;
use std::vec::Vec;

/// Which matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The 5-point Poisson matrix of an `m × m` grid (4 on the diagonal,
    /// −1 for each neighbour, Dirichlet boundaries): `n = m²`.
    Poisson,
    /// `per_row` entries a row: 1 on the diagonal, the others at random
    /// columns within `band` of it with random values in (0, 1], from a
    /// fixed seed.
    Random,
}

/// A matrix the programs make, row by row.
#[derive(Clone, Copy, Debug)]
pub struct Matrix {
    /// Which one.
    pub kind: Kind,
    /// Rows and columns.
    pub n: u32,
    /// Poisson: the grid's side; random: the bandwidth.
    pub side_or_band: u32,
    /// Random: entries a row.
    pub per_row: u32,
}

/// A 64-bit mix (SplitMix64's finaliser): the random matrix's entries are a
/// pure function of (row, entry), the same on every process and in every
/// version, which a generator crate does not promise.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Rows of a process in CSR form, ready to upload.
#[derive(Clone, Debug, Default)]
pub struct HostCsr {
    /// Where each row's entries start, and the end.
    pub row_ptr: Vec<u32>,
    /// Columns.
    pub cols: Vec<u32>,
    /// Values.
    pub vals: Vec<f64>,
}

impl Matrix {
    /// The matrix `o` asks for.
    pub fn of(o: &Options) -> Matrix {
        match o.matrix {
            Kind::Poisson => Matrix {
                kind: Kind::Poisson,
                n: o.size * o.size,
                side_or_band: o.size,
                per_row: 5,
            },
            Kind::Random => Matrix {
                kind: Kind::Random,
                n: o.size,
                side_or_band: o.band,
                per_row: o.per_row,
            },
        }
    }

    /// No entry lies further than this from the diagonal.
    pub fn band(&self) -> u32 {
        self.side_or_band.min(self.n.saturating_sub(1))
    }

    /// Every row's absolute sum is at most this.
    pub fn row_sum_bound(&self) -> f64 {
        match self.kind {
            Kind::Poisson => 8.0,
            Kind::Random => self.per_row as f64,
        }
    }

    /// Appends row `i`'s entries, by column, to `out`.
    pub fn row(&self, i: u32, out: &mut Vec<(u32, f64)>) {
        let start = out.len();
        match self.kind {
            Kind::Poisson => {
                let m = self.side_or_band;
                let (x, y) = (i % m, i / m);
                if y > 0 {
                    out.push((i - m, -1.0));
                }
                if x > 0 {
                    out.push((i - 1, -1.0));
                }
                out.push((i, 4.0));
                if x + 1 < m {
                    out.push((i + 1, -1.0));
                }
                if y + 1 < m {
                    out.push((i + m, -1.0));
                }
            }
            Kind::Random => {
                let band = self.band() as u64;
                let lo = (i as u64).saturating_sub(band);
                let hi = (i as u64 + band).min(self.n as u64 - 1);
                out.push((i, 1.0));
                for k in 1..self.per_row as u64 {
                    let r = mix((i as u64) << 16 | k);
                    let col = lo + r % (hi - lo + 1);
                    let val = ((r >> 11) % 1_000_000 + 1) as f64 / 1e6;
                    out.push((col as u32, val));
                }
                out[start..].sort_by_key(|e| e.0);
            }
        }
    }

    /// Rows `rows` in CSR form.
    pub fn rows(&self, rows: (u32, u32)) -> Result<HostCsr, String> {
        let mut csr = HostCsr::default();
        let mut entries = Vec::new();
        csr.row_ptr.push(0);
        for i in rows.0..rows.1 {
            entries.clear();
            self.row(i, &mut entries);
            csr.cols.extend(entries.iter().map(|e| e.0));
            csr.vals.extend(entries.iter().map(|e| e.1));
            let end = u32::try_from(csr.cols.len()).map_err(|_| {
                format!(
                    "rows {}..{} hold over 2³² entries: use more processes",
                    rows.0, rows.1
                )
            })?;
            csr.row_ptr.push(end);
        }
        Ok(csr)
    }
}

/// The CPU reference: `iters` products from the vector of ones, each
/// scaled as the programs scale it (plain: `scale`; power iteration: the
/// inverse of the last norm), each row summed in order as on the device.
/// Returns the vector and each product's norm.
pub fn reference(m: &Matrix, iters: u32, power: bool, scale: f64) -> (Vec<f64>, Vec<f64>) {
    let n = m.n as usize;
    let mut x = std::vec![1.0f64; n];
    let mut y = std::vec![0.0f64; n];
    let mut s = if power {
        1.0 / (n as f64).sqrt()
    } else {
        scale
    };
    let mut norms = Vec::new();
    let mut row = Vec::new();
    for _ in 0..iters {
        let mut squares = 0.0;
        for (i, yi) in y.iter_mut().enumerate() {
            row.clear();
            m.row(i as u32, &mut row);
            let mut sum = 0.0f64;
            for &(c, v) in &row {
                sum += v * x[c as usize];
            }
            *yi = s * sum;
            squares += *yi * *yi;
        }
        let norm = squares.sqrt();
        norms.push(norm);
        if power {
            s = 1.0 / norm;
        }
        std::mem::swap(&mut x, &mut y);
    }
    (x, norms)
}

/// Compares a process's entries `got` (global rows `rows`) and the norms
/// with the reference after `iters` products: plain products bitwise (the
/// same operations in the same order); power iteration to a relative
/// 1e-9, since its norms are sums over ranks in another order.
pub fn check(
    m: &Matrix,
    o: &Options,
    (rows, got): ((u32, u32), &[f64]),
    norms: Option<&[f64]>,
    iters: u32,
) -> Result<(), String> {
    let (want, want_norms) = reference(m, iters, o.power, o.scale(m));
    let largest = want.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    for (k, &g) in got.iter().enumerate() {
        let (i, w) = (rows.0 as usize + k, want[rows.0 as usize + k]);
        let bad = if o.power {
            (g - w).abs() > 1e-9 * largest
        } else {
            g.to_bits() != w.to_bits()
        };
        if bad {
            return Err(format!(
                "entry {i} after {iters} products: {g} but the CPU reference has {w}"
            ));
        }
    }
    for (k, (&g, &w)) in norms.unwrap_or(&[]).iter().zip(&want_norms).enumerate() {
        if (g - w).abs() > 1e-9 * w.abs() {
            return Err(format!(
                "product {k}: norm {g} but the CPU reference has {w}"
            ));
        }
    }
    Ok(())
}
