//! Sparse matrix–vector products and power iteration with dcuda: one
//! persistent kernel per GPU, a rank per block owning a band of rows; the
//! entries other processes' ranks read go to them by notified puts, and
//! power iteration's norm is an `allreduce`. Run alone or under `mpirun -np
//! N` (one GPU a process). Options: see `spmv_kernels::host::Options`.

use app_support::report::Run;
use dcuda::{RunConfig, Runtime};
use spmv_kernels::host::{check, Defaults, Matrix, Options, Outcome};
use spmv_kernels::{split, Csr, SpmvArgs, SPMV};

fn main() {
    app_support::main("spmv", run);
}

fn run() -> app_support::Res<()> {
    let o = Options::parse(Defaults::RANKS)?;
    let m = Matrix::of(&o);
    let rt = Runtime::new()?;
    let module = rt.load_with(&dcuda::include_ptx!("spmv_kernels"), &o.load_options())?;
    let fit = app_support::ranks_that_fit(&module, &SPMV, o.threads, o.max_registers)?;
    let config = RunConfig::new(o.threads).ranks(o.units.unwrap_or(fit));
    let info = module.rank_info(&SPMV, &config)?;
    if info.rank_count > m.n {
        let n = m.n;
        return Err(format!(
            "{} ranks for {n} rows: every rank needs a row (pass --ranks)",
            info.rank_count
        )
        .into());
    }
    let (first, total) = (info.first_rank, info.rank_count);
    let rows = (
        split(m.n, total, first).0,
        split(m.n, total, first + info.ranks_on_device - 1).1,
    );
    let csr = m.rows(rows)?;
    let (row_ptr, cols, vals) = (
        rt.upload(&csr.row_ptr)?,
        rt.upload(&csr.cols)?,
        rt.upload(&csr.vals)?,
    );
    let ones = vec![1.0f64; m.n as usize];
    let (xa, xb) = (rt.upload(&ones)?, rt.upload(&ones)?);
    let norms = rt.alloc::<f64>(o.iters as usize)?;
    let done = rt.alloc::<u64>(2)?;
    let args = SpmvArgs {
        matrix: Csr {
            row_ptr: row_ptr.slice(),
            cols: cols.slice(),
            vals: vals.slice(),
        },
        xa: xa.slice(),
        xb: xb.slice(),
        n: m.n,
        band: m.band(),
        iters: o.iters,
        power: o.power as u32,
        tol: o.tol,
        scale: o.scale(&m),
        norms: norms.slice(),
        done: done.slice(),
    };
    // SAFETY: the matrix holds the process's rows, well formed; the vectors
    // all `n` entries; `norms` a value per product; all outlive the run.
    unsafe { module.run(&SPMV, &config, &args)? };

    // Every process learns the count: world rank 0 wrote it, but each
    // process's vectors are its own; the products are as many everywhere.
    let job = app_support::Job::of(&rt);
    let products = if first == 0 {
        done.download()?[0] as u32
    } else {
        0
    };
    let products = job.allreduce(products as f64, true)? as u32;
    let x = if products.is_multiple_of(2) { &xa } else { &xb }.download()?;
    let norms = norms.download()?;
    let mine = &x[rows.0 as usize..rows.1 as usize];
    let checked = if o.check {
        let known = (first == 0 && o.power).then_some(&norms[..products as usize]);
        check(&m, &o, (rows, mine), known, products)?;
        "correct"
    } else {
        "not checked"
    };
    let squares = job.allreduce(mine.iter().map(|v| v * v).sum(), false)?;
    if first != 0 {
        return Ok(());
    }
    let norm = if o.power {
        norms[products as usize - 1]
    } else {
        squares.sqrt()
    };
    let outcome = Outcome {
        run: Run::of_ranks(
            "spmv",
            &rt,
            &info,
            done.download()?[1] as f64 * 1e-9,
            checked,
        ),
        options: o.clone(),
        matrix: m,
        products,
        norm,
    };
    print!("{}", outcome.render()?);
    Ok(())
}
