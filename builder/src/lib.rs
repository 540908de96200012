//! Compiles a dcuda kernel crate to PTX from a `build.rs`, the way
//! rust-cuda's `cuda_builder` does, but on the stable toolchain: rustc's own
//! `nvptx64-nvidia-cuda` target with `-Zbuild-std=core` (enabled through
//! `RUSTC_BOOTSTRAP=1` for the kernel build only).
//!
//! ```no_run
//! // in build.rs of the host crate, inside `fn main`:
//! dcuda_builder::PtxBuilder::new("../kernels-ptx/smoke")
//!     .build()
//!     .unwrap_or_else(|e| panic!("{e}"));
//! ```
//!
//! The host crate then embeds the PTX with `dcuda::include_ptx!("crate_name")`.
//!
//! The architecture defaults to [`Arch::DEFAULT`] (`sm_70`: PTX that the
//! driver compiles for V100 and every newer GPU). Set several with
//! [`PtxBuilder::archs`] or the `DCUDA_ARCH` environment variable
//! (`DCUDA_ARCH=sm_70,sm_90`); the runtime loads the newest one the GPU runs.

use std::env;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Set in the nested build's environment.
const NESTED: &str = "DCUDA_BUILDER_NESTED";

/// The nvptx target triple.
pub const TARGET: &str = "nvptx64-nvidia-cuda";

/// A GPU architecture, `sm_XY` (compute capability X.Y).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Arch(pub u32);

impl Arch {
    /// `sm_70` (Volta, V100): the oldest architecture with the PTX memory
    /// model (scoped acquire/release) and `nanosleep` that dcuda relies on.
    pub const DEFAULT: Arch = Arch(70);

    /// Parses `sm_90`, `90` or `compute_90`.
    pub fn parse(s: &str) -> Result<Arch, Error> {
        let digits = s
            .trim()
            .trim_start_matches("sm_")
            .trim_start_matches("compute_");
        match digits.parse::<u32>() {
            Ok(n) if n >= 70 => Ok(Arch(n)),
            Ok(n) => Err(Error::Arch(format!(
                "sm_{n} is older than sm_70; dcuda needs the PTX memory model of Volta or newer"
            ))),
            Err(_) => Err(Error::Arch(format!(
                "`{s}` is not an architecture (expected e.g. sm_90)"
            ))),
        }
    }

    /// The lowest PTX ISA version that has every instruction dcuda emits
    /// (`nanosleep` needs 6.3) and that supports this architecture.
    pub fn ptx_isa(self) -> u32 {
        match self.0 {
            0..=75 => 63,
            76..=80 => 70,
            81..=86 => 71,
            87 => 74,
            88..=90 => 78,
            91..=100 => 86,
            _ => 88,
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.0)
    }
}

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

/// Builds one kernel crate to PTX.
#[derive(Clone, Debug)]
pub struct PtxBuilder {
    krate: PathBuf,
    archs: Option<Vec<Arch>>,
    out_dir: Option<PathBuf>,
    target_dir: Option<PathBuf>,
}

/// What [`PtxBuilder::build`] produced.
#[derive(Clone, Debug)]
pub struct PtxOutput {
    /// The kernel crate's library name (the name `include_ptx!` takes).
    pub name: String,
    /// One PTX file per architecture.
    pub files: Vec<(Arch, PathBuf)>,
}

impl PtxBuilder {
    /// A builder for the kernel crate at `path` (relative to the calling
    /// crate's manifest directory, or absolute).
    pub fn new(path: impl AsRef<Path>) -> Self {
        let path = path.as_ref();
        let krate = match env::var_os("CARGO_MANIFEST_DIR") {
            Some(dir) if path.is_relative() => PathBuf::from(dir).join(path),
            _ => path.to_path_buf(),
        };
        PtxBuilder {
            krate,
            archs: None,
            out_dir: None,
            target_dir: None,
        }
    }

    /// Build for one architecture.
    pub fn arch(self, arch: Arch) -> Self {
        self.archs(&[arch])
    }

    /// Build for several architectures. `DCUDA_ARCH` overrides this.
    pub fn archs(mut self, archs: &[Arch]) -> Self {
        self.archs = Some(archs.to_vec());
        self
    }

    /// Where to put the PTX and its index (default: `OUT_DIR`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The nested cargo's target directory (default: `dcuda-ptx` inside the
    /// calling build's target directory, shared by all build scripts).
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.target_dir = Some(dir.into());
        self
    }

    /// The architectures to build: `DCUDA_ARCH`, else the builder's, else
    /// [`Arch::DEFAULT`].
    pub fn selected_archs(&self) -> Result<Vec<Arch>, Error> {
        let mut archs = match env::var("DCUDA_ARCH") {
            Ok(list) if !list.trim().is_empty() => list
                .split(',')
                .map(Arch::parse)
                .collect::<Result<Vec<_>, _>>()?,
            _ => self.archs.clone().unwrap_or_else(|| vec![Arch::DEFAULT]),
        };
        archs.sort();
        archs.dedup();
        Ok(archs)
    }

    /// Compiles the crate for each architecture, copies the PTX into the
    /// output directory and writes `<name>.ptx.rs`, the index that
    /// `dcuda::include_ptx!` reads. Prints `cargo:rerun-if-changed` for every
    /// source file the kernels depend on.
    ///
    /// Inside the nested build itself this does nothing: a package may
    /// build its own library as PTX from its `build.rs` (an application in
    /// `apps/` is one package), and the nested build runs that `build.rs`
    /// again.
    pub fn build(&self) -> Result<PtxOutput, Error> {
        if env::var_os(NESTED).is_some() {
            return Ok(PtxOutput {
                name: String::new(),
                files: Vec::new(),
            });
        }
        let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        check_components(Path::new(&rustc))?;
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(env::var_os("OUT_DIR").ok_or_else(|| {
                Error::Io("OUT_DIR is not set; call from build.rs or set out_dir".into())
            })?),
        };
        let target_dir = self
            .target_dir
            .clone()
            .unwrap_or_else(|| default_target_dir(&out_dir));
        println!("cargo:rerun-if-env-changed=DCUDA_ARCH");
        println!(
            "cargo:rerun-if-changed={}",
            self.krate.join("Cargo.toml").display()
        );

        let mut name = String::new();
        let mut files = Vec::new();
        for arch in self.selected_archs()? {
            let (lib_name, ptx, deps) = self.compile(Path::new(&cargo), &target_dir, arch)?;
            for dep in deps {
                println!("cargo:rerun-if-changed={}", dep.display());
            }
            let dest = out_dir.join(format!("{lib_name}.{arch}.ptx"));
            fs::copy(&ptx, &dest)
                .map_err(|e| Error::Io(format!("copying {}: {e}", ptx.display())))?;
            name = lib_name;
            files.push((arch, dest));
        }
        let index = files
            .iter()
            .map(|(arch, path)| {
                format!(
                    "({}u32, include_str!({:?})),",
                    arch.0,
                    path.display().to_string()
                )
            })
            .collect::<String>();
        fs::write(
            out_dir.join(format!("{name}.ptx.rs")),
            format!("&[{index}]"),
        )
        .map_err(|e| Error::Io(format!("writing the PTX index: {e}")))?;
        Ok(PtxOutput { name, files })
    }

    /// One nested cargo build; returns the library name, the PTX path and the
    /// source files it was built from.
    fn compile(
        &self,
        cargo: &Path,
        target_dir: &Path,
        arch: Arch,
    ) -> Result<(String, PathBuf, Vec<PathBuf>), Error> {
        let flags = [
            format!("-Ctarget-cpu={arch}"),
            format!("-Ctarget-feature=+ptx{}", arch.ptx_isa()),
        ];
        let mut cmd = Command::new(cargo);
        cmd.arg("rustc")
            .arg("--manifest-path")
            .arg(self.krate.join("Cargo.toml"))
            .args([
                "--release",
                "--lib",
                "--crate-type",
                "cdylib",
                "--target",
                TARGET,
            ])
            .args(["-Zbuild-std=core", "--message-format=json"])
            .arg("--target-dir")
            .arg(target_dir.join(arch.to_string()))
            .env(NESTED, "1")
            .env("RUSTC_BOOTSTRAP", "1")
            .env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"))
            .env("CARGO_PROFILE_RELEASE_PANIC", "abort")
            .env("CARGO_PROFILE_RELEASE_DEBUG", "false");
        // The outer build's settings are for the host target, not for nvptx.
        for var in [
            "RUSTFLAGS",
            "RUSTC_WRAPPER",
            "RUSTC_WORKSPACE_WRAPPER",
            "CARGO_TARGET_DIR",
            "CARGO_BUILD_TARGET",
            "CARGO_BUILD_RUSTFLAGS",
        ] {
            cmd.env_remove(var);
        }
        let out = cmd
            .output()
            .map_err(|e| Error::Io(format!("running {}: {e}", cargo.display())))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(Error::Compile {
                krate: self.krate.clone(),
                arch,
                output: diagnostics(&stdout, &out.stderr),
            });
        }
        let ptx = stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|m| m["reason"] == "compiler-artifact")
            .filter_map(|m| m["filenames"].as_array().cloned())
            .flatten()
            .filter_map(|f| f.as_str().map(PathBuf::from))
            .find(|f| f.extension().is_some_and(|e| e == "ptx"))
            .ok_or_else(|| {
                Error::Io(format!(
                    "cargo built {} but reported no .ptx file",
                    self.krate.display()
                ))
            })?;
        let lib_name = ptx
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let deps = dep_info_sources(&ptx.with_extension("d"));
        Ok((lib_name, ptx, deps))
    }
}

/// The compiler's messages: rendered diagnostics from the JSON stream, then
/// cargo's own output.
fn diagnostics(stdout: &str, stderr: &[u8]) -> String {
    let rendered: String = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|m| m["message"]["rendered"].as_str().map(String::from))
        .collect();
    format!("{rendered}{}", String::from_utf8_lossy(stderr))
}

/// `<target>/dcuda-ptx`, where `<target>` is the calling build's target
/// directory (`OUT_DIR` is `<target>/<profile>/build/<pkg>/out`).
fn default_target_dir(out_dir: &Path) -> PathBuf {
    out_dir
        .ancestors()
        .nth(4)
        .map(|t| t.join("dcuda-ptx"))
        .unwrap_or_else(|| out_dir.join("dcuda-ptx"))
}

/// Source files listed in cargo's dep-info file, less the standard library's.
fn dep_info_sources(dep_file: &Path) -> Vec<PathBuf> {
    let Ok(text) = fs::read_to_string(dep_file) else {
        return Vec::new();
    };
    let Some((_, deps)) = text.lines().next().and_then(|l| l.split_once(": ")) else {
        return Vec::new();
    };
    deps.replace("\\ ", "\u{0}")
        .split_whitespace()
        .map(|p| PathBuf::from(p.replace('\u{0}', " ")))
        .filter(|p| !p.components().any(|c| c.as_os_str() == "rustlib"))
        .collect()
}

/// Checks the rustup components that `-Zbuild-std` on nvptx needs.
fn check_components(rustc: &Path) -> Result<(), Error> {
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_architectures() {
        assert_eq!(Arch::parse("sm_90").unwrap(), Arch(90));
        assert_eq!(Arch::parse(" 80 ").unwrap(), Arch(80));
        assert_eq!(Arch::parse("compute_75").unwrap(), Arch(75));
        assert!(Arch::parse("sm_60")
            .unwrap_err()
            .to_string()
            .contains("older than sm_70"));
        assert!(Arch::parse("volta")
            .unwrap_err()
            .to_string()
            .contains("`volta`"));
    }

    #[test]
    fn ptx_isa_has_nanosleep_and_supports_the_architecture() {
        assert_eq!(Arch(70).ptx_isa(), 63);
        assert_eq!(Arch(80).ptx_isa(), 70);
        assert_eq!(Arch(90).ptx_isa(), 78);
        assert!(Arch(100).ptx_isa() >= 86);
    }

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

    #[test]
    fn dep_info_skips_the_standard_library() {
        let dir = std::env::temp_dir().join(format!("dcuda-builder-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let d = dir.join("k.d");
        fs::write(&d, "/t/k.ptx: /src/a.rs /src/my\\ dir/b.rs /x/lib/rustlib/src/rust/library/core/src/lib.rs\n").unwrap();
        assert_eq!(
            dep_info_sources(&d),
            vec![
                PathBuf::from("/src/a.rs"),
                PathBuf::from("/src/my dir/b.rs")
            ]
        );
        fs::remove_dir_all(dir).unwrap();
    }
}
