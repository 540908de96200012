//! The halo exchange of a host-driven baseline whose field is split in
//! rows over processes, periodic in the row direction.

use crate::{Job, Res};
use dcuda::{DeviceBuffer, DeviceCopy, MappedBuffer, Runtime, Stream};

/// Which halos an exchange fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// First rows go up: the bottom halo gets the first row of the process
    /// below.
    Up,
    /// Last rows go down: the top halo gets the last row of the process
    /// above.
    Down,
    /// Both.
    Both,
}

/// Moves halo rows of fields of one width: device copies when the job has
/// one process (the periodic wrap), otherwise device → pinned host memory,
/// `MPI_Sendrecv`, host → device.
pub struct RowHalos<T: DeviceCopy> {
    job: Job,
    width: usize,
    /// Rows to send up and down, then the rows received from below and
    /// above.
    staging: MappedBuffer<T>,
}

impl<T: DeviceCopy> RowHalos<T> {
    /// Staging for rows of `width` elements.
    pub fn new(rt: &Runtime, job: Job, width: usize) -> Res<Self> {
        Ok(RowHalos {
            job,
            width,
            staging: rt.alloc_mapped::<T>(4 * width)?,
        })
    }

    /// Queues on `stream`, after the work that wrote `field`'s boundary
    /// rows, the exchange of its halos. `field` is `rows` owned rows (1 to
    /// `rows`) between halo rows 0 and `rows + 1`. Between processes the
    /// call waits for `stream`, calls MPI and queues the copies back; the
    /// halos are in place for the work queued on `stream` after it.
    ///
    /// # Safety
    /// `field` outlives the work queued on `stream` (until it is
    /// synchronised), as for [`Stream::copy`].
    pub unsafe fn exchange(
        &self,
        stream: &Stream,
        field: &DeviceBuffer<T>,
        rows: usize,
        direction: Direction,
    ) -> Res<()> {
        let w = self.width;
        if field.len() < (rows + 2) * w || rows == 0 {
            return Err(format!(
                "halo exchange: a field of {} elements does not hold {rows} rows and two halos of {w}",
                field.len()
            )
            .into());
        }
        let (first, last, top, bottom) = (w, rows * w, 0, (rows + 1) * w);
        let up = direction != Direction::Down;
        let down = direction != Direction::Up;
        if self.job.procs == 1 {
            // SAFETY: rows of `field`, which the caller keeps alive until
            // the stream's work is done.
            unsafe {
                if up {
                    stream.copy(field, bottom, field, first..first + w)?;
                }
                if down {
                    stream.copy(field, top, field, last..last + w)?;
                }
            }
            return Ok(());
        }
        let (above, below) = self.job.neighbours();
        let s = &self.staging;
        // SAFETY: `field` and the staging outlive the copies; the host reads
        // the staging only after the synchronisation.
        unsafe {
            if up {
                stream.copy_to_mapped(s, 0, field, first..first + w)?;
            }
            if down {
                stream.copy_to_mapped(s, w, field, last..last + w)?;
            }
        }
        stream.synchronize()?;
        // SAFETY: no device work touches the staging between the
        // synchronisation above and the copies below; four disjoint rows.
        let [send_up, send_down, from_below, from_above] = std::array::from_fn(|k| unsafe {
            std::slice::from_raw_parts_mut(s.host_ptr().add(k * w), w)
        });
        if up {
            self.job
                .sendrecv(send_up, Some(above), from_below, Some(below))?;
        }
        if down {
            self.job
                .sendrecv(send_down, Some(below), from_above, Some(above))?;
        }
        // SAFETY: as above; work queued later on `stream` runs after these
        // copies, and the staging is not reused before the stream has
        // passed them (the next exchange synchronises first).
        unsafe {
            if up {
                stream.copy_from_mapped(field, bottom, s, 2 * w..3 * w)?;
            }
            if down {
                stream.copy_from_mapped(field, top, s, 3 * w..4 * w)?;
            }
        }
        Ok(())
    }
}
