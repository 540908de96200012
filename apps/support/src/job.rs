//! The MPI calls of the host-driven baselines, through `mpi-sys` on the
//! communicator the dcuda runtime initialised.

use crate::Res;
use dcuda::{DeviceCopy, Runtime};
use std::ffi::c_void;

/// This process's place in the job: process `me` of `procs` (0 of 1 when
/// the program runs alone).
#[derive(Clone, Copy, Debug)]
pub struct Job {
    /// This process.
    pub me: i32,
    /// Processes in the job.
    pub procs: i32,
}

fn mpi_check(call: &str, code: i32) -> Res<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(format!("{call} failed with MPI error code {code}").into())
    }
}

impl Job {
    /// The job `rt` runs in.
    pub fn of(rt: &Runtime) -> Job {
        rt.job()
            .map(|j| Job {
                me: j.process() as i32,
                procs: j.processes() as i32,
            })
            .unwrap_or(Job { me: 0, procs: 1 })
    }

    /// The process above (`me - 1`) and below (`me + 1`), periodic.
    pub fn neighbours(&self) -> (i32, i32) {
        (
            (self.me + self.procs - 1) % self.procs,
            (self.me + 1) % self.procs,
        )
    }

    /// Sends `send` to process `to` and receives `recv` from `from`
    /// (`MPI_Sendrecv`, as bytes); `None` is nobody (`MPI_PROC_NULL`): no
    /// send, or no receive.
    pub fn sendrecv<T: DeviceCopy>(
        &self,
        send: &[T],
        to: Option<i32>,
        recv: &mut [T],
        from: Option<i32>,
    ) -> Res<()> {
        let bytes = |n: usize| -> Res<i32> {
            i32::try_from(n * size_of::<T>())
                .map_err(|_| format!("MPI_Sendrecv: {n} elements exceed an MPI count").into())
        };
        // SAFETY: a constant of the MPI library.
        let nobody = unsafe { mpi_sys::RSMPI_PROC_NULL };
        let (to, from) = (to.unwrap_or(nobody), from.unwrap_or(nobody));
        // SAFETY: MPI is initialised (the runtime did it for the job); the
        // buffers hold the byte counts given; `T` is plain data.
        let code = unsafe {
            mpi_sys::MPI_Sendrecv(
                send.as_ptr() as *const c_void,
                bytes(send.len())?,
                mpi_sys::RSMPI_UINT8_T,
                to,
                0,
                recv.as_mut_ptr() as *mut c_void,
                bytes(recv.len())?,
                mpi_sys::RSMPI_UINT8_T,
                from,
                0,
                mpi_sys::RSMPI_COMM_WORLD,
                mpi_sys::RSMPI_STATUS_IGNORE,
            )
        };
        mpi_check("MPI_Sendrecv", code)
    }

    /// Sends each `(to, data)` of `sends` and receives each `(from, buffer)`
    /// of `recvs` at once (`MPI_Isend`, `MPI_Irecv`, `MPI_Waitall`, as
    /// bytes): an exchange with any set of processes, one message each way
    /// per pair.
    pub fn exchange<T: DeviceCopy>(
        &self,
        sends: &[(i32, &[T])],
        recvs: &mut [(i32, &mut [T])],
    ) -> Res<()> {
        let sends: Vec<(i32, i32, &[T])> = sends.iter().map(|&(to, d)| (to, 1, d)).collect();
        let mut recvs: Vec<(i32, i32, &mut [T])> = recvs
            .iter_mut()
            .map(|(from, b)| (*from, 1, &mut **b))
            .collect();
        self.exchange_tagged(&sends, &mut recvs)
    }

    /// [`exchange`](Self::exchange) with a tag per message, `(peer, tag,
    /// data)`: several messages between one pair of processes, told apart
    /// by their tags. A receive buffer may be longer than its message.
    pub fn exchange_tagged<T: DeviceCopy>(
        &self,
        sends: &[(i32, i32, &[T])],
        recvs: &mut [(i32, i32, &mut [T])],
    ) -> Res<()> {
        let bytes = |n: usize| -> Res<i32> {
            i32::try_from(n * size_of::<T>())
                .map_err(|_| format!("MPI_Isend: {n} elements exceed an MPI count").into())
        };
        if sends.is_empty() && recvs.is_empty() {
            return Ok(()); // Also alone, where MPI is not initialised.
        }
        // SAFETY: a constant of the MPI library.
        let null = unsafe { mpi_sys::RSMPI_REQUEST_NULL };
        let mut requests = vec![null; sends.len() + recvs.len()];
        for ((to, tag, data), request) in sends.iter().zip(&mut requests) {
            // SAFETY: MPI is initialised; `data` outlives the wait below.
            let code = unsafe {
                mpi_sys::MPI_Isend(
                    data.as_ptr() as *const c_void,
                    bytes(data.len())?,
                    mpi_sys::RSMPI_UINT8_T,
                    *to,
                    *tag,
                    mpi_sys::RSMPI_COMM_WORLD,
                    request,
                )
            };
            mpi_check("MPI_Isend", code)?;
        }
        for ((from, tag, buffer), request) in recvs.iter_mut().zip(&mut requests[sends.len()..]) {
            // SAFETY: as above; `buffer` outlives the wait below.
            let code = unsafe {
                mpi_sys::MPI_Irecv(
                    buffer.as_mut_ptr() as *mut c_void,
                    bytes(buffer.len())?,
                    mpi_sys::RSMPI_UINT8_T,
                    *from,
                    *tag,
                    mpi_sys::RSMPI_COMM_WORLD,
                    request,
                )
            };
            mpi_check("MPI_Irecv", code)?;
        }
        // SAFETY: the requests started above, each once.
        let code = unsafe {
            mpi_sys::MPI_Waitall(
                requests.len() as i32,
                requests.as_mut_ptr(),
                mpi_sys::RSMPI_STATUSES_IGNORE,
            )
        };
        mpi_check("MPI_Waitall", code)
    }

    /// `value` summed over the processes, or their maximum with `max`
    /// (`MPI_Allreduce`).
    pub fn allreduce(&self, value: f64, max: bool) -> Res<f64> {
        if self.procs == 1 {
            return Ok(value);
        }
        let mut out = 0.0f64;
        // SAFETY: as above; one double in, one out.
        let code = unsafe {
            let op = if max {
                mpi_sys::RSMPI_MAX
            } else {
                mpi_sys::RSMPI_SUM
            };
            mpi_sys::MPI_Allreduce(
                &value as *const f64 as *const c_void,
                &mut out as *mut f64 as *mut c_void,
                1,
                mpi_sys::RSMPI_DOUBLE,
                op,
                mpi_sys::RSMPI_COMM_WORLD,
            )
        };
        mpi_check("MPI_Allreduce", code)?;
        Ok(out)
    }
}
