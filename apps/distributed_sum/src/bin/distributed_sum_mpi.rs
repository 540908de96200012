//! The host-driven baseline of the distributed sum, as an MPI+CUDA
//! programmer writes it: a kernel sums each block (the same block
//! reduction as the dcuda version), the host copies the partial sums back
//! and adds them up, and `MPI_Allreduce` combines the processes. Run alone
//! or under `mpirun -np N`; process 0 checks the total.

use dcuda::{RunConfig, Runtime};
use distributed_sum_kernels::{value, SumArgs, BLOCK_SUMS};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    dcuda::log::init(); // dcuda's messages to standard error (DCUDA_LOG filters)
    let rt = Runtime::new()?;
    let module = rt.load(&dcuda::include_ptx!("distributed_sum_kernels"))?;
    let config = RunConfig::new(128);
    let info = module.rank_info(&BLOCK_SUMS, &config)?;
    let threads = config.threads_per_rank() as u64;
    let first = info.first_rank as u64 * threads;
    let mine = info.ranks_on_device as u64 * threads;
    let data: Vec<f64> = (first..first + mine).map(value).collect();
    let input = rt.upload(&data)?;
    let partials = rt.alloc::<f64>(info.ranks_on_device as usize)?;
    let unused = rt.alloc::<f64>(1)?;
    let args = SumArgs {
        data: input.slice(),
        partials: partials.slice(),
        result: unused.slice(),
    };
    let start = Instant::now();
    // SAFETY: the buffers are sized for every rank of the run and outlive it.
    unsafe { module.run(&BLOCK_SUMS, &config, &args)? };
    let local: f64 = partials.download()?.iter().sum();
    let total = if info.process_count > 1 {
        let mut total = 0.0f64;
        // SAFETY: MPI is initialised (the runtime did it for the job);
        // one f64 in, one out.
        let code = unsafe {
            mpi_sys::MPI_Allreduce(
                &local as *const f64 as *const _,
                &mut total as *mut f64 as *mut _,
                1,
                mpi_sys::RSMPI_DOUBLE,
                mpi_sys::RSMPI_SUM,
                mpi_sys::RSMPI_COMM_WORLD,
            )
        };
        if code != 0 {
            return Err(format!("MPI_Allreduce failed with code {code}").into());
        }
        total
    } else {
        local
    };
    let elapsed = start.elapsed();
    if info.first_rank != 0 {
        return Ok(());
    }
    let want: f64 = (0..info.rank_count as u64 * threads).map(value).sum();
    if (total - want).abs() > 1e-9 * want.abs() {
        return Err(format!("distributed_sum_mpi: {total} != host sum {want}").into());
    }
    println!(
        "distributed_sum_mpi: {} ranks ({} processes) x {} threads correct on the {} backend: {total:.6} (kernel, copy and MPI {elapsed:?})",
        info.rank_count,
        info.process_count,
        config.threads_per_rank(),
        rt.backend(),
    );
    Ok(())
}
