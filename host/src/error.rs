//! Errors of the host runtime. Each names the call and the values involved.

/// A result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The GPU backend was requested but `libcuda` could not be loaded.
    #[error("dcuda: the GPU backend needs the CUDA driver, but libcuda.so could not be loaded (is the NVIDIA driver installed? use DCUDA_BACKEND=emulator to run on the CPU)")]
    NoDriver,
    /// The GPU backend was requested but there is no (such) device.
    #[error("dcuda: no CUDA device with ordinal {ordinal}: the driver reports {count} device(s)")]
    NoDevice {
        /// The requested device ordinal.
        ordinal: usize,
        /// How many devices the driver reports.
        count: usize,
    },
    /// `auto` found a GPU but could not use it (it does not fall back to
    /// the emulator silently).
    #[error("dcuda: a CUDA driver and GPU are present, but the GPU cannot be used; set DCUDA_BACKEND=emulator to run on the CPU emulator instead")]
    GpuUnusable {
        /// Why the GPU could not be opened.
        #[source]
        source: Box<Error>,
    },
    /// A process of a job has no GPU of its own.
    #[error("dcuda: this process is number {local} of the {count} processes on its host, but it sees only {visible} GPU(s) (CUDA_VISIBLE_DEVICES); run at most one process per GPU, or choose one with DCUDA_DEVICE")]
    GpuPlacement {
        /// This process's index on its host.
        local: u32,
        /// Processes on the host.
        count: u32,
        /// GPUs this process sees.
        visible: usize,
    },
    /// A CUDA driver call failed.
    #[error("dcuda: {call} failed: {code}: {message}")]
    Cuda {
        /// The driver call.
        call: &'static str,
        /// The `CUresult` name.
        code: String,
        /// The driver's description.
        message: String,
    },
    /// An environment variable has a value dcuda does not understand.
    #[error("dcuda: {var}={value:?} is not valid; expected {expected}")]
    InvalidEnv {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
        /// What would be valid.
        expected: &'static str,
    },
    /// A module holds no PTX the device can run.
    #[error("dcuda: module `{module}` has PTX for {available} but the device is sm_{device}; rebuild with DCUDA_ARCH including an architecture <= sm_{device}")]
    PtxArch {
        /// The module.
        module: String,
        /// The architectures it was built for.
        available: String,
        /// The device's compute capability, as `major*10+minor`.
        device: u32,
    },
    /// The driver rejected a module's PTX.
    #[error("dcuda: loading module `{module}` (sm_{arch}) failed: {code}\n{log}")]
    PtxLoad {
        /// The module.
        module: String,
        /// The PTX variant that was tried.
        arch: u32,
        /// The `CUresult` name.
        code: String,
        /// The JIT compiler's error log.
        log: String,
    },
    /// A launch names a kernel the module does not contain.
    #[error("dcuda: module `{module}` has no kernel `{kernel}` (kernels: {available})")]
    KernelNotFound {
        /// The module.
        module: String,
        /// The requested kernel.
        kernel: String,
        /// The kernels it has.
        available: String,
    },
    /// A launch configuration is invalid or cannot run.
    #[error("dcuda: launch of `{kernel}` rejected: {reason}")]
    InvalidLaunch {
        /// The kernel.
        kernel: String,
        /// Why.
        reason: String,
    },
    /// A kernel failed while running (a device panic traps).
    #[error("dcuda: kernel `{kernel}` failed: {message}")]
    KernelFault {
        /// The kernel.
        kernel: String,
        /// What the backend reported.
        message: String,
    },
    /// An earlier kernel fault left the GPU context unusable.
    #[error("dcuda: the GPU context is unusable since kernel `{kernel}` faulted ({cause}); CUDA cannot recover from a device fault within a process: restart it")]
    ContextLost {
        /// The kernel that faulted.
        kernel: String,
        /// Its fault.
        cause: String,
    },
    /// The network between processes failed, or its setup did.
    #[error("dcuda: network: {call}: {reason}")]
    Network {
        /// What was being done.
        call: &'static str,
        /// What went wrong.
        reason: String,
    },
    /// NVSHMEM could not be loaded, started or used.
    #[error("dcuda: NVSHMEM: {call}: {reason}")]
    Nvshmem {
        /// The NVSHMEM call or step.
        call: &'static str,
        /// What went wrong.
        reason: String,
    },
    /// Another process of the job failed; this one aborted its run.
    #[error("dcuda: kernel `{kernel}` aborted because process {process} failed:\n{message}")]
    PeerFailed {
        /// The kernel.
        kernel: String,
        /// The process that failed.
        process: u32,
        /// Its error.
        message: String,
    },
    /// A rank called the runtime with bad arguments; the run was aborted.
    #[error("dcuda: kernel `{kernel}`: {message}")]
    RankCall {
        /// The kernel.
        kernel: String,
        /// The device rank that made the call.
        rank: u32,
        /// The call.
        call: &'static str,
        /// The rank, the call and the values, in words.
        message: String,
    },
    /// The device sent the host a command it cannot have meant: a bad rank
    /// index, an unknown op, a request a single process cannot serve.
    #[error("dcuda: kernel `{kernel}`: device rank {rank} sent a malformed command: {reason}")]
    BadCommand {
        /// The kernel.
        kernel: String,
        /// The rank index in the command.
        rank: u32,
        /// What is wrong with it.
        reason: String,
    },
    /// The watchdog saw every rank waiting without progress, and aborted.
    #[error("dcuda: kernel `{kernel}` aborted by the watchdog\n{report}")]
    Watchdog {
        /// The kernel.
        kernel: String,
        /// What each rank was waiting on.
        report: String,
    },
    /// The job's setup failed earlier in this process; every later call
    /// returns that failure.
    #[error(transparent)]
    JobSetup(std::sync::Arc<Error>),
    /// A transport does not offer an operation (one-sided access, say).
    #[error("dcuda: the {transport} transport does not support {operation}")]
    Unsupported {
        /// The transport.
        transport: &'static str,
        /// The operation.
        operation: &'static str,
    },
    /// A copy between buffers of different lengths.
    #[error("dcuda: {call}: buffer has {expected} elements but the host slice has {actual}")]
    LengthMismatch {
        /// The call.
        call: &'static str,
        /// The buffer's length.
        expected: usize,
        /// The slice's length.
        actual: usize,
    },
    /// A range outside a buffer.
    #[error("dcuda: {call}: elements {range:?} are outside a buffer of {len}")]
    OutOfRange {
        /// The call.
        call: &'static str,
        /// The range asked for.
        range: std::ops::Range<usize>,
        /// The buffer's length.
        len: usize,
    },
    /// Arguments that cannot go together.
    #[error("dcuda: {call}: {reason}")]
    InvalidArgument {
        /// The call.
        call: &'static str,
        /// Why.
        reason: String,
    },
    /// An allocation failed.
    #[error("dcuda: {call}: cannot allocate {bytes} bytes: {reason}")]
    Alloc {
        /// The call.
        call: &'static str,
        /// The requested size.
        bytes: usize,
        /// Why.
        reason: String,
    },
    /// A file dcuda writes (a trace) could not be written.
    #[error("dcuda: {what}: {source}")]
    Io {
        /// What was being written.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// A performance model file (`DCUDA_MODEL`) is not understood.
    #[error("dcuda: the performance model {reason}")]
    Model {
        /// Which file and line, and what is wrong.
        reason: String,
    },
}

impl Error {
    /// The message without the `dcuda: ` prefix, for wrapping into another
    /// error's text: the prefix then appears once.
    pub(crate) fn reason(&self) -> String {
        let text = self.to_string();
        text.strip_prefix("dcuda: ")
            .map(str::to_string)
            .unwrap_or(text)
    }

    pub(crate) fn cuda(call: &'static str, e: cudarc::driver::DriverError) -> Error {
        let code = e
            .error_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|_| format!("{:?}", e.0));
        let message = e
            .error_string()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Error::Cuda {
            call,
            code,
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_errors_name_dcuda_once() {
        let inner = Error::Network {
            call: "decode",
            reason: "a truncated message".into(),
        };
        let outer = Error::Network {
            call: "receive",
            reason: inner.reason(),
        };
        assert_eq!(
            outer.to_string(),
            "dcuda: network: receive: network: decode: a truncated message"
        );
        let setup = Error::JobSetup(std::sync::Arc::new(inner));
        assert_eq!(
            setup.to_string(),
            "dcuda: network: decode: a truncated message"
        );
    }
}
