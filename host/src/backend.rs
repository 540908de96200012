//! Which backend runs the kernels, and how that is decided.

use crate::error::{Error, Result};
use std::fmt;

/// The backend a [`Runtime`](crate::Runtime) runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A CUDA GPU, through the driver API.
    Gpu,
    /// The CPU emulator: kernels compiled for the host, one OS thread per
    /// emulated GPU thread.
    Emulator,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Gpu => "GPU",
            Backend::Emulator => "CPU emulator",
        })
    }
}

/// What the user asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendChoice {
    /// The GPU when a driver and a device are present, else the emulator.
    #[default]
    Auto,
    /// The GPU; an error if there is none.
    Gpu,
    /// The CPU emulator.
    Emulator,
}

impl BackendChoice {
    /// The environment variable that chooses the backend.
    pub const ENV: &'static str = "DCUDA_BACKEND";

    /// Reads [`Self::ENV`]: `auto`, `gpu` or `emulator` (also `emu`, `cpu`).
    pub fn from_env() -> Result<Option<BackendChoice>> {
        match std::env::var(Self::ENV) {
            Err(_) => Ok(None),
            Ok(v) => match v.trim().to_ascii_lowercase().as_str() {
                "" | "auto" => Ok(Some(BackendChoice::Auto)),
                "gpu" | "cuda" => Ok(Some(BackendChoice::Gpu)),
                "emulator" | "emu" | "cpu" => Ok(Some(BackendChoice::Emulator)),
                _ => Err(Error::InvalidEnv {
                    var: Self::ENV,
                    value: v,
                    expected: "auto, gpu or emulator",
                }),
            },
        }
    }
}
