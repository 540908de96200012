//! Why a build failed.

use std::fmt;
use std::path::PathBuf;

use crate::Arch;

/// Why a PTX build failed.
#[derive(Debug)]
pub enum Error {
    /// A rustup component the nvptx build needs is not installed.
    MissingComponent {
        /// The component's name.
        component: &'static str,
        /// The command that installs it.
        install: String,
    },
    /// An architecture could not be parsed or is unsupported.
    Arch(String),
    /// The kernel crate failed to compile.
    Compile {
        /// The kernel crate's directory.
        krate: PathBuf,
        /// The architecture being built.
        arch: Arch,
        /// The compiler's output.
        output: String,
    },
    /// An I/O or tool error.
    Io(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::MissingComponent { component, install } => write!(
                f,
                "dcuda-builder: the rustup component `{component}` is missing; install it with `{install}`"
            ),
            Error::Arch(msg) => write!(f, "dcuda-builder: {msg}"),
            Error::Compile { krate, arch, output } => write!(
                f,
                "dcuda-builder: compiling {} for {arch} failed:\n{output}",
                krate.display()
            ),
            Error::Io(msg) => write!(f, "dcuda-builder: {msg}"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_component_names_the_install_command() {
        let e = Error::MissingComponent {
            component: "rust-src",
            install: "rustup component add rust-src".into(),
        };
        assert!(e
            .to_string()
            .contains("install it with `rustup component add rust-src`"));
    }
}
