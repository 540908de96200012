//! Bad arguments: the first error of a run is recorded for the host, the
//! run is aborted, and every rank ends cleanly.

use super::wait::abort_exit;
use super::Runtime;
use crate::abi::{Call, Fault, TAGS, USER_TAGS};
use crate::arch::{self, Ordering, Scope};
use crate::block::Block;

impl Runtime {
    /// Records `fault` of `call` with `values`, aborts the run and ends
    /// this rank. Checks are uniform, so every thread of the rank gets here.
    #[cold]
    pub fn fail(&self, block: &mut Block, call: Call, fault: Fault, values: [u64; 4]) -> ! {
        let ctx = self.ctx();
        let (error, abort, rank) = (ctx.error(), ctx.abort(), block.id());
        block.single(|_| {
            // SAFETY: the error record and abort flag live for the whole run.
            unsafe {
                if arch::compare_exchange(
                    &raw mut (*error).call,
                    0,
                    call as u32 + 1,
                    Ordering::Relaxed,
                    Scope::Gpu,
                ) == 0
                {
                    (*error).rank = rank;
                    (*error).fault = fault as u32;
                    (*error).values = values;
                }
                arch::store_release(abort, 1, Scope::Gpu);
            }
            0u32
        });
        abort_exit()
    }

    /// Fails unless `tag` is a tag a user may use: below
    /// [`USER_TAGS`]; the tags above it are the library's own.
    #[inline(always)]
    pub fn check_user_tag(&self, block: &mut Block, call: Call, tag: u32) {
        if tag >= USER_TAGS {
            let fault = if tag < TAGS {
                Fault::TagReserved
            } else {
                Fault::TagOutOfRange
            };
            self.fail(block, call, fault, [tag as u64, 0, 0, 0]);
        }
    }

    /// Fails unless `count` fits the counters' signed comparison.
    #[inline(always)]
    pub fn check_count(&self, block: &mut Block, call: Call, count: u32) {
        if count > i32::MAX as u32 {
            self.fail(
                block,
                call,
                Fault::CountTooLarge,
                [count as u64, i32::MAX as u64, 0, 0],
            );
        }
    }
}
