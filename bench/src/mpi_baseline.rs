//! Raw MPI between the processes of a benchmark: the host baseline of
//! `bench_world` (host memory, timed with `MPI_Wtime`: a host baseline has
//! no device clock).

use crate::stats::{summary, Summary};
use mpi_sys as ffi;

/// Raw MPI between processes 0 and 1 on `MPI_COMM_WORLD` (host memory):
/// half round trip of a `bytes` ping-pong in µs, per batch of `iters`
/// (timed with `MPI_Wtime`: a host baseline has no device clock).
pub fn mpi_pingpong(me: u32, bytes: usize, batches: u32, iters: u32) -> Summary {
    let mut buf = vec![0u8; bytes.max(1)];
    let peer = 1 - me as i32;
    let (p, n) = (buf.as_mut_ptr() as *mut _, bytes as i32);
    let mut samples = Vec::new();
    // SAFETY: blocking sends and receives of our own buffer.
    unsafe {
        let (send, recv) = (
            || ffi::MPI_Send(p, n, ffi::RSMPI_UINT8_T, peer, 7, ffi::RSMPI_COMM_WORLD),
            || {
                ffi::MPI_Recv(
                    p,
                    n,
                    ffi::RSMPI_UINT8_T,
                    peer,
                    7,
                    ffi::RSMPI_COMM_WORLD,
                    ffi::RSMPI_STATUS_IGNORE,
                )
            },
        );
        ffi::MPI_Barrier(ffi::RSMPI_COMM_WORLD);
        for b in 0..batches + 1 {
            let t0 = ffi::RSMPI_Wtime();
            for _ in 0..iters {
                if me == 0 {
                    send();
                    recv();
                } else {
                    recv();
                    send();
                }
            }
            if b > 0 {
                samples.push((ffi::RSMPI_Wtime() - t0) * 1e6 / iters as f64 / 2.0);
            }
        }
    }
    summary(samples)
}
