//! The plans' patterns as a user writes them by hand: MPI between the
//! processes' host memory (`MPI_Send`/`MPI_Recv` of each process's
//! contiguous share from the root, `MPI_Bcast`), and one stream write or
//! read of the process's share (device copies to its other ranks for a
//! broadcast).

use dcuda::plan::Placement;
use dcuda::{DeviceBuffer, Stream};
use mpi_sys as ffi;

/// What the hand-written versions share.
pub struct ByHand<'a> {
    pub at: &'a Placement,
    pub stream: Stream,
    /// Elements a rank gets in a scatter.
    pub share: usize,
}

/// A tag of the benchmark's own on `MPI_COMM_WORLD`.
const TAG: i32 = 77;

fn send(data: &[f32], to: u32) {
    // SAFETY: a blocking send of our own buffer (under 2 GiB: the sizes
    // of the benchmark).
    unsafe {
        ffi::MPI_Send(
            data.as_ptr() as *const _,
            (data.len() * 4) as i32,
            ffi::RSMPI_UINT8_T,
            to as i32,
            TAG,
            ffi::RSMPI_COMM_WORLD,
        );
    }
}

fn recv(data: &mut [f32], from: u32) {
    // SAFETY: a blocking receive into our own buffer.
    unsafe {
        ffi::MPI_Recv(
            data.as_mut_ptr() as *mut _,
            (data.len() * 4) as i32,
            ffi::RSMPI_UINT8_T,
            from as i32,
            TAG,
            ffi::RSMPI_COMM_WORLD,
            ffi::RSMPI_STATUS_IGNORE,
        );
    }
}

/// Every process here (before each timed call, outside its time).
pub fn barrier(at: &Placement) {
    if at.processes() > 1 {
        // SAFETY: a collective every process calls in the same order.
        unsafe { ffi::MPI_Barrier(ffi::RSMPI_COMM_WORLD) };
    }
}

impl ByHand<'_> {
    /// The elements process `q` holds in a scatter from process 0.
    fn range(&self, q: u32) -> std::ops::Range<usize> {
        let r = self.at.ranks_of(q);
        r.start as usize * self.share..r.end as usize * self.share
    }

    /// Process 0's `input` to every process's share.
    pub fn scatter(
        &self,
        input: &[f32],
        parts: &mut DeviceBuffer<f32>,
        staging: &mut [f32],
    ) -> dcuda::Result<()> {
        let me = self.at.process();
        if me == 0 {
            for q in 1..self.at.processes() {
                send(&input[self.range(q)], q);
            }
            return self.stream.write(parts, 0, &input[self.range(0)]);
        }
        recv(staging, 0);
        self.stream.write(parts, 0, staging)
    }

    /// Every process's share back into process 0's `out`.
    pub fn gather(
        &self,
        parts: &DeviceBuffer<f32>,
        out: &mut [f32],
        staging: &mut [f32],
    ) -> dcuda::Result<()> {
        let me = self.at.process();
        if me != 0 {
            self.stream.read(parts, 0, staging)?;
            send(staging, 0);
            return Ok(());
        }
        let own = self.range(0);
        self.stream.read(parts, 0, &mut out[own])?;
        for q in 1..self.at.processes() {
            let r = self.range(q);
            recv(&mut out[r], q);
        }
        Ok(())
    }

    /// Process 0's `data` (`MPI_Bcast` between the hosts) to each of the
    /// process's `local` parts of `wide`.
    pub fn broadcast(
        &self,
        data: &mut [f32],
        wide: &mut DeviceBuffer<f32>,
        local: usize,
    ) -> dcuda::Result<()> {
        if self.at.processes() > 1 {
            // SAFETY: a collective over our own buffer, every process in
            // the same order.
            unsafe {
                ffi::MPI_Bcast(
                    data.as_mut_ptr() as *mut _,
                    (data.len() * 4) as i32,
                    ffi::RSMPI_UINT8_T,
                    0,
                    ffi::RSMPI_COMM_WORLD,
                );
            }
        }
        let n = data.len();
        self.stream.write(wide, 0, data)?;
        for i in 1..local {
            // SAFETY: disjoint ranges of one buffer that outlives the
            // synchronisation below.
            unsafe { self.stream.copy(wide, i * n, wide, 0..n)? };
        }
        self.stream.synchronize()
    }
}
