//! How the programs lay their threads out unless told: threads, register
//! caps, batches, chunks and load caching by default, and the dcuda
//! program's threads by how evenly its ranks split the rows.

pub use app_support::args::Geometry;
use dcuda::LoadCaching;

/// The threads of the dcuda program's ranks when not given: the most of
/// 1024, 512 and 256 whose ranks (as many as `fit(threads)`, at most a row
/// each) split a process's `rows` within 10% of evenly, else the most even;
/// threads of which no rank fits are never taken while others fit (with
/// none, 1024, which the caller then reports as not fitting).
/// A stage lasts as long as the rank with the most rows: 320 rows over 132
/// ranks of 1024 threads give some three rows and the mean 2.4, while 320
/// ranks of 256 threads each take one (`bench/results/2026-11-28-hdiff-chunks-h200x2/`).
pub fn balanced_threads(rows: u32, fit: impl Fn(u32) -> u32) -> u32 {
    let excess = |threads: u32| {
        if fit(threads) == 0 {
            return f64::INFINITY;
        }
        let ranks = fit(threads).min(rows.max(1));
        let most = rows.div_ceil(ranks);
        most as f64 * ranks as f64 / rows.max(1) as f64
    };
    const CHOICES: [u32; 3] = [1024, 512, 256];
    CHOICES
        .into_iter()
        .find(|&t| excess(t) <= 1.1)
        .unwrap_or_else(|| {
            CHOICES
                .into_iter()
                .min_by(|&a, &b| excess(a).total_cmp(&excess(b)))
                .unwrap_or(1024)
        })
}

/// Points of a row the baseline's blocks of several rows walk down their
/// rows at a time (a block of one row, its default, walks the same either
/// way); the rank kernel walks across its rows instead (`Order::Across`).
pub const CHUNK: u32 = 4096;

/// The dcuda program's geometry unless told otherwise (its fastest on an
/// H100, `bench/results/2026-11-24-stencils-h100/`): one rank of 1024
/// threads an SM at 64 registers (the rank kernel's runtime paths need
/// more uncapped), faster than two of 256 or 512.
pub const RANKS: Geometry = Geometry {
    threads: 1024,
    max_registers: 64,
    batch: 1,
};

/// The baseline's, its fastest on an H100.
pub const BLOCKS: Geometry = Geometry {
    threads: 128,
    max_registers: 64,
    batch: 2,
};

// ANCHOR: caching
/// Where the rank kernel's plain global loads are cached unless told, by
/// the most rows a rank walks. In a band of several rows a stencil reads
/// the rows beside a point again: L1 keeps them (`LoadCaching::L1AndL2`,
/// 3% faster at 512×1280×32 on an H200, walked down by chunks; the walk
/// across the rows, `Order::Across`, keeps the choice). A rank of one
/// row reads nothing twice, and L1 is better left to its stack
/// (`LoadCaching::L2Only`, 8% faster at 128×320×26; its stencils ask for
/// their lines ahead themselves, `Walk::prefetch`).
/// (`bench/results/2026-11-30-hdiff-dlcm-h200/`,
/// `bench/results/2026-11-30-apps-61e6187-h200x2/variants/`.)
pub fn rank_caching(rows_per_rank: u32) -> LoadCaching {
    if rows_per_rank > 1 {
        LoadCaching::L1AndL2
    } else {
        LoadCaching::L2Only
    }
}
// ANCHOR_END: caching

/// The baseline's: the compiler's default, its faster.
pub const BLOCK_CACHING: LoadCaching = LoadCaching::L1AndL2;
