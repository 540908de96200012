//! The tracing calls of [`Rank`]: named phases, and the hook through which
//! every communication call records its span when the run is traced
//! (`RunConfig::trace` or `DCUDA_TRACE` on the host). Untraced, each costs
//! one load and branch.

use super::Rank;
use crate::abi::Call;
use crate::arch;

impl Rank {
    /// Opens phase `name` of this rank's timeline (`"halo"`, `"interior"`):
    /// the calls made until the matching [`trace_end`](Self::trace_end)
    /// belong to it. Phases nest (up to 8 deep are closed; deeper ones are
    /// reported as never ended). Names longer than 64 bytes are cut.
    #[inline(always)]
    #[track_caller]
    pub fn trace_begin(&mut self, name: &'static str) {
        arch::block::enter_call("trace_begin", [("name", name.as_ptr() as u64)]);
        self.rt.trace_begin(&self.block, name)
    }

    /// Closes the innermost open phase. In a traced run, a call without an
    /// open phase stops the run with an error.
    #[inline(always)]
    #[track_caller]
    pub fn trace_end(&mut self) {
        arch::block::enter_call("trace_end", []);
        self.rt.trace_end(&mut self.block)
    }

    /// Runs `f` as phase `name`: [`trace_begin`](Self::trace_begin), `f`,
    /// [`trace_end`](Self::trace_end).
    #[inline(always)]
    #[track_caller]
    pub fn trace<R>(&mut self, name: &'static str, f: impl FnOnce(&mut Rank) -> R) -> R {
        self.trace_begin(name);
        let r = f(self);
        self.trace_end();
        r
    }

    /// Runs `f` as runtime call `call` of this rank's timeline, with its
    /// peer (`u32::MAX`: none) and bytes (or count, for waits).
    #[inline(always)]
    pub(crate) fn traced<R>(
        &mut self,
        call: Call,
        what: (u32, u64),
        f: impl FnOnce(&mut Rank) -> R,
    ) -> R {
        let start = self.rt.trace_clock(&self.block);
        let r = f(self);
        self.rt.trace_call(&self.block, start, call, what);
        r
    }
}
