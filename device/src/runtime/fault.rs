//! Bad arguments: the first error of a run is recorded for the host, the
//! run is aborted, and every rank ends cleanly.

use super::layout::{Call, Fault};
use crate::arch::{self, Ordering, Scope};
use crate::rank::collective::single;
use crate::rank::Rank;

impl Rank {
    /// Records `fault` of `call` with `values`, aborts the run and ends
    /// this rank. Checks are uniform, so every thread of the rank gets here.
    #[cold]
    pub(crate) fn fail(&mut self, call: Call, fault: Fault, values: [u64; 4]) -> ! {
        let ctx = *self.ctx();
        let rank = self.id;
        single(self, |_| {
            // SAFETY: the error record and abort flag live for the whole run.
            unsafe {
                let e = ctx.error;
                if arch::compare_exchange(
                    &raw mut (*e).call,
                    0,
                    call as u32 + 1,
                    Ordering::Relaxed,
                    Scope::Gpu,
                ) == 0
                {
                    (*e).rank = rank;
                    (*e).fault = fault as u32;
                    (*e).values = values;
                }
                arch::store_release(ctx.abort, 1, Scope::Gpu);
            }
            0u32
        });
        self.abort_exit()
    }

    /// Fails unless `tag` is a valid tag.
    #[inline(always)]
    pub(crate) fn check_tag(&mut self, call: Call, tag: u32) {
        if tag as usize >= super::layout::TAGS {
            self.fail(call, Fault::TagOutOfRange, [tag as u64, 0, 0, 0]);
        }
    }
}
