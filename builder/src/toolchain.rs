//! The tools the build runs besides cargo: the rustup components the
//! nvptx build needs, and ptxas for SASS.

use crate::{Arch, Error};
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Compiles `ptx` to a cubin for `arch` with `ptxas` (`DCUDA_PTXAS`, else
/// the one on `PATH`), on as many threads as the machine has.
pub(crate) fn compile_sass(arch: Arch, ptx: &Path, cubin: &Path) -> Result<(), Error> {
    let ptxas = env::var_os("DCUDA_PTXAS").unwrap_or_else(|| "ptxas".into());
    let out = Command::new(&ptxas)
        .arg(format!("-arch={arch}"))
        .args(["-O3", "-split-compile", "0"])
        .arg(ptx)
        .arg("-o")
        .arg(cubin)
        .output()
        .map_err(|e| {
            Error::Io(format!(
                "DCUDA_SASS needs ptxas: running `{}` failed ({e}); put it on PATH or set DCUDA_PTXAS (the PyPI wheel nvidia-cuda-nvcc has one)",
                Path::new(&ptxas).display()
            ))
        })?;
    if !out.status.success() {
        return Err(Error::Io(format!(
            "ptxas failed on {} for {arch}:\n{}",
            ptx.display(),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(())
}

/// Checks the rustup components that `-Zbuild-std` on nvptx needs; returns
/// the folder of the LLVM tools.
pub(crate) fn check_components(rustc: &Path) -> Result<PathBuf, Error> {
    let sysroot = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| Error::Io(format!("running {} --print sysroot: {e}", rustc.display())))?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
    let host = Command::new(rustc)
        .args(["--print", "host-tuple"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "x86_64-unknown-linux-gnu".into());
    let bin = sysroot.join("lib/rustlib").join(&host).join("bin");
    let checks: [(&'static str, PathBuf); 3] = [
        (
            "rust-src",
            sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml"),
        ),
        (
            "llvm-bitcode-linker",
            bin.join("self-contained/llvm-bitcode-linker"),
        ),
        ("llvm-tools", bin.join("llc")),
    ];
    for (component, path) in checks {
        if !path.exists() {
            return Err(Error::MissingComponent {
                component,
                install: format!("rustup component add {component}"),
            });
        }
    }
    Ok(bin)
}

/// The architectures of a `DCUDA_SASS` list; an error names the variable.
pub(crate) fn sass_list(list: &str) -> Result<Vec<Arch>, Error> {
    list.split(',')
        .map(Arch::parse)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| match e {
            Error::Arch(why) => {
                Error::Arch(format!("DCUDA_SASS=`{list}`: {why} (or 1: all, 0: none)"))
            }
            other => other,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_sass_list_names_the_variable_and_the_value() {
        assert_eq!(sass_list("sm_80, 90").unwrap(), [Arch(80), Arch(90)]);
        let e = sass_list("sm_90,hopper").unwrap_err().to_string();
        assert!(
            e.contains("DCUDA_SASS=`sm_90,hopper`")
                && e.contains("`hopper` is not an architecture"),
            "{e}"
        );
    }
}
