//! The MPI transport (staged two-sided messages only): non-blocking sends (`MPI_Isend`, completed by
//! `MPI_Test`) and matched probes (`MPI_Improbe` + `MPI_Mrecv`) on a
//! duplicate of `MPI_COMM_WORLD`, so that the program's own MPI traffic
//! never mixes with the runtime's. Channels are MPI tags. Needs
//! `MPI_THREAD_MULTIPLE`: the progress thread sends while the receive
//! thread receives.
//!
//! Payloads are staged in host memory: neither Debian's nor Ubuntu's
//! OpenMPI is CUDA-aware, and a CUDA-aware MPI would copy synchronously
//! against the running persistent kernel unless configured otherwise.

use super::lent::{Lent, Outgoing, Received};
use super::Transport;
use crate::error::{Error, Result};
use mpi_sys as ffi;
use std::ffi::c_int;
use std::mem::MaybeUninit;
use std::sync::Mutex;

/// Receives of at least this many bytes are traced (`dcuda::route=trace`).
const TRACED_FROM: usize = 64 << 10;

pub(crate) struct MpiTransport {
    comm: ffi::MPI_Comm,
    rank: u32,
    size: u32,
    /// Sends in flight, with the buffers they read from.
    pending: Mutex<Vec<(ffi::MPI_Request, Outgoing)>>,
}

// SAFETY: MPI handles are plain values; MPI_THREAD_MULTIPLE makes every call
// thread-safe, and `pending` is behind a mutex.
unsafe impl Send for MpiTransport {}
// SAFETY: as above.
unsafe impl Sync for MpiTransport {}

fn check(call: &'static str, code: c_int) -> Result<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(Error::Network {
            call,
            reason: format!("MPI error code {code}"),
        })
    }
}

/// At exit: tell the other processes this one leaves; finalise MPI after a
/// clean run, abort the job after a failure (a finalisation the peers
/// never reach would hang).
extern "C" fn finalize_at_exit() {
    if !super::job::at_exit() {
        return; // Aborted: the transport does not return from that.
    }
    let mut finalized = 0;
    // SAFETY: plain queries and the final call, once, at process exit.
    unsafe {
        ffi::MPI_Finalized(&mut finalized);
        if finalized == 0 {
            ffi::MPI_Finalize();
        }
    }
}

/// Whether the MPI library takes device memory, where it says so (Open
/// MPI's `MPIX_Query_cuda_support`, looked up at run time: other MPIs
/// lack it, and a link-time reference would tie dcuda to one).
fn cuda_aware() -> Option<bool> {
    // SAFETY: dlsym with RTLD_DEFAULT (null) searches the loaded objects;
    // the symbol, when there, is `int MPIX_Query_cuda_support(void)`,
    // callable after MPI_Init.
    unsafe {
        let f = dlsym(std::ptr::null_mut(), c"MPIX_Query_cuda_support".as_ptr());
        if f.is_null() {
            return None;
        }
        let query: extern "C" fn() -> c_int = std::mem::transmute(f);
        Some(query() != 0)
    }
}

extern "C" {
    fn dlsym(
        handle: *mut std::ffi::c_void,
        symbol: *const std::ffi::c_char,
    ) -> *mut std::ffi::c_void;
    fn atexit(f: extern "C" fn()) -> c_int;
    fn _exit(code: c_int) -> !;
}

impl MpiTransport {
    pub(crate) fn init() -> Result<Self> {
        let mut initialized = 0;
        let mut provided = 0;
        // SAFETY: MPI's init protocol; the program may have initialised MPI itself.
        unsafe {
            check("MPI_Initialized", ffi::MPI_Initialized(&mut initialized))?;
            if initialized == 0 {
                check(
                    "MPI_Init_thread",
                    ffi::MPI_Init_thread(
                        std::ptr::null_mut(),
                        std::ptr::null_mut(),
                        ffi::RSMPI_THREAD_MULTIPLE,
                        &mut provided,
                    ),
                )?;
                atexit(finalize_at_exit);
            } else {
                check("MPI_Query_thread", ffi::MPI_Query_thread(&mut provided))?;
            }
            if provided < ffi::RSMPI_THREAD_MULTIPLE {
                return Err(Error::Network {
                    call: "MPI_Init_thread",
                    reason: format!("the MPI library provides thread level {provided}, but dcuda needs MPI_THREAD_MULTIPLE ({}); use an MPI built with thread support", ffi::RSMPI_THREAD_MULTIPLE),
                });
            }
            let mut comm = MaybeUninit::uninit();
            check(
                "MPI_Comm_dup",
                ffi::MPI_Comm_dup(ffi::RSMPI_COMM_WORLD, comm.as_mut_ptr()),
            )?;
            let comm = comm.assume_init();
            let (mut rank, mut size) = (0, 0);
            check("MPI_Comm_rank", ffi::MPI_Comm_rank(comm, &mut rank))?;
            check("MPI_Comm_size", ffi::MPI_Comm_size(comm, &mut size))?;
            Ok(MpiTransport {
                comm,
                rank: rank as u32,
                size: size as u32,
                pending: Mutex::new(Vec::new()),
            })
        }
    }
}

impl MpiTransport {
    /// Sends `data` to `to` on `channel`, holding it until the send completes.
    fn isend(&self, to: u32, channel: u32, data: Outgoing) -> Result<()> {
        let bytes = data.bytes();
        let len = c_int::try_from(bytes.len()).map_err(|_| Error::Network {
            call: "MPI_Isend",
            reason: format!("message of {} bytes is too large", bytes.len()),
        })?;
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let mut request = MaybeUninit::uninit();
        // SAFETY: the buffer stays alive (in `pending`) until the send
        // completes; moving `data` moves no bytes (heap or lent memory).
        unsafe {
            check(
                "MPI_Isend",
                ffi::MPI_Isend(
                    bytes.as_ptr() as *const _,
                    len,
                    ffi::RSMPI_UINT8_T,
                    to as c_int,
                    channel as c_int,
                    self.comm,
                    request.as_mut_ptr(),
                ),
            )?;
            pending.push((request.assume_init(), data));
        }
        Ok(())
    }

    /// A message on `channel`, received into what `lend` gives for its
    /// length, else into a heap buffer.
    fn recv(
        &self,
        channel: u32,
        lend: &mut dyn FnMut(usize) -> Option<Box<dyn Lent>>,
    ) -> Result<Option<(u32, Received)>> {
        let mut found = 0;
        let mut message = MaybeUninit::uninit();
        let mut status = MaybeUninit::<ffi::MPI_Status>::uninit();
        // SAFETY: a matched probe, then a receive of exactly that message
        // into a buffer of its length.
        unsafe {
            check(
                "MPI_Improbe",
                ffi::MPI_Improbe(
                    ffi::RSMPI_ANY_SOURCE,
                    channel as c_int,
                    self.comm,
                    &mut found,
                    message.as_mut_ptr(),
                    status.as_mut_ptr(),
                ),
            )?;
            if found == 0 {
                return Ok(None);
            }
            let mut status = status.assume_init();
            let mut count = 0;
            check(
                "MPI_Get_count",
                ffi::MPI_Get_count(&status, ffi::RSMPI_UINT8_T, &mut count),
            )?;
            let len = count as usize;
            let traced = len >= TRACED_FROM;
            let start = traced.then(std::time::Instant::now);
            // MPI writes `len` bytes at `into`.
            let (data, into) = Received::landing(lend(len), len);
            check(
                "MPI_Mrecv",
                ffi::MPI_Mrecv(
                    into as *mut _,
                    count,
                    ffi::RSMPI_UINT8_T,
                    message.as_mut_ptr(),
                    &mut status,
                ),
            )?;
            if let Some(start) = start {
                let us = start.elapsed().as_secs_f64() * 1e6;
                let lent = matches!(data, Received::Lent(_));
                // Since this thread's last large receive ended: what the
                // receiver does between pieces.
                thread_local!(static LAST: std::cell::Cell<Option<std::time::Instant>> = const { std::cell::Cell::new(None) });
                let gap = LAST.get().map_or(0.0, |t| (start - t).as_secs_f64() * 1e6);
                LAST.set(Some(std::time::Instant::now()));
                tracing::trace!(target: "dcuda::route", bytes = len, lent, recv_us = us, gap_us = gap, "MPI receive");
            }
            Ok(Some((status.MPI_SOURCE as u32, data)))
        }
    }
}

impl Transport for MpiTransport {
    fn name(&self) -> &'static str {
        "MPI"
    }

    fn process(&self) -> u32 {
        self.rank
    }

    fn processes(&self) -> u32 {
        self.size
    }

    fn describe(&self) -> String {
        let path = "device data staged through host memory";
        match cuda_aware() {
            Some(false) => format!("MPI, not CUDA-aware (MPIX_Query_cuda_support says 0): {path}"),
            Some(true) => {
                format!("MPI, CUDA-aware, but dcuda has no device-pointer path yet: {path}")
            }
            None => format!("MPI, CUDA awareness unknown (no MPIX_Query_cuda_support): {path}"),
        }
    }

    fn send(&self, to: u32, channel: u32, data: Vec<u8>) -> Result<()> {
        self.isend(to, channel, Outgoing::Owned(data))
    }

    fn send_lent(&self, to: u32, channel: u32, data: Box<dyn Lent>) -> Result<()> {
        self.isend(to, channel, Outgoing::Lent(data))
    }

    fn progress(&self) -> Result<usize> {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let mut i = 0;
        while i < pending.len() {
            let mut done = 0;
            // SAFETY: a live request of ours.
            unsafe {
                check(
                    "MPI_Test",
                    ffi::MPI_Test(&mut pending[i].0, &mut done, ffi::RSMPI_STATUS_IGNORE),
                )?
            };
            if done != 0 {
                pending.swap_remove(i).1.done();
            } else {
                i += 1;
            }
        }
        Ok(pending.len())
    }

    fn try_recv(&self, channel: u32) -> Result<Option<(u32, Vec<u8>)>> {
        Ok(self.recv(channel, &mut |_| None)?.map(|(from, m)| match m {
            Received::Owned(v) => (from, v),
            Received::Lent(l) => (from, l.bytes().to_vec()),
        }))
    }

    fn try_recv_lent(
        &self,
        channel: u32,
        lend: &mut dyn FnMut(usize) -> Option<Box<dyn Lent>>,
    ) -> Result<Option<(u32, Received)>> {
        self.recv(channel, lend)
    }

    fn exit_barrier(&self, failed: &dyn Fn() -> bool) -> bool {
        let mut request = MaybeUninit::uninit();
        // SAFETY: a non-blocking barrier on our communicator, tested until
        // done; the request lives on this stack frame until then.
        unsafe {
            if ffi::MPI_Ibarrier(self.comm, request.as_mut_ptr()) != 0 {
                return false;
            }
            let mut request = request.assume_init();
            loop {
                let mut done = 0;
                if ffi::MPI_Test(&mut request, &mut done, ffi::RSMPI_STATUS_IGNORE) != 0 {
                    return false;
                }
                if done != 0 {
                    return true;
                }
                if failed() {
                    return false;
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
    }

    fn abort(&self, message: &str) -> ! {
        // The process ends here, and nobody is left to print why: say it on
        // standard error. Not through `tracing`: this may run in an atexit
        // handler, after the subscriber's thread-locals are gone.
        eprintln!("{message}");
        // SAFETY: ends the job. `_exit`, not `exit`: this may run in an
        // atexit handler, where `exit` is undefined behaviour.
        unsafe {
            ffi::MPI_Abort(ffi::RSMPI_COMM_WORLD, 1);
            _exit(1)
        }
    }
}
