//! Logging from rank kernels: the device sends the format string's bytes
//! and the arguments' raw values; the host formats and prints them while
//! the kernel runs. `core::fmt` on the device would make ptxas assume 255
//! registers per thread (its indirect calls hide the callees), which cuts
//! the ranks that fit on a GPU by eight.

use super::Runtime;
use crate::abi::ring::Payload;
use crate::abi::{Command, LogArg, Op};
use crate::block::Block;

impl Runtime {
    /// Sends a log message to the host.
    pub fn log(&mut self, block: &mut Block, format: &'static str, args: &[LogArg]) {
        for chunk in format.as_bytes().chunks(Command::PAYLOAD) {
            let mut words = [0u32; Command::PAYLOAD / 4];
            for (i, b) in chunk.iter().enumerate() {
                words[i / 4] |= (*b as u32) << (8 * (i % 4));
            }
            let used = chunk.len().div_ceil(4);
            let text = Payload {
                words: &words[..used],
                bytes: chunk.len() as u32,
            };
            self.host_send(block, Op::Log, 0, text);
        }
        for arg in args {
            let (kind, bits) = arg.encode();
            self.host_send(block, Op::LogArg, kind, Payload::of(&bits));
        }
        self.host_send(block, Op::LogEnd, args.len() as u32, Payload::EMPTY);
    }
}

macro_rules! log_arg {
    ($variant:ident as $wide:ty: $($t:ty),*) => {$(
        impl From<$t> for LogArg {
            fn from(v: $t) -> Self {
                LogArg::$variant(v as $wide)
            }
        }
    )*};
}
log_arg!(Unsigned as u64: u8, u16, u32, u64, usize);
log_arg!(Signed as i64: i8, i16, i32, i64, isize);
log_arg!(Float as f64: f32, f64);

impl From<bool> for LogArg {
    fn from(v: bool) -> Self {
        LogArg::Bool(v)
    }
}

/// Logs a message from a rank kernel (uniform code): the host fills the
/// `{}` placeholders with the arguments (integers, floats, bools) and prints
/// it live as `[rank N] message`.
///
/// ```ignore
/// rank_log!(rank, "sum = {}", sum);
/// ```
#[macro_export]
macro_rules! rank_log {
    ($rank:expr, $format:literal $(, $arg:expr)* $(,)?) => {
        $rank.log($format, &[$($crate::abi::LogArg::from($arg)),*])
    };
}
