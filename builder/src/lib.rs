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
//!
//! With [`PtxBuilder::sass`] or `DCUDA_SASS` (`1`: every architecture built;
//! or a list, `DCUDA_SASS=sm_90`), `ptxas` (`DCUDA_PTXAS`, else the one on
//! `PATH`) also compiles those architectures' PTX to SASS, which the runtime
//! loads on a GPU of that architecture instead of having the driver compile
//! the PTX when the program starts (a minute for a large module on a
//! machine whose driver cache is empty). ptxas 13 builds sm_75 and newer.
//!
//! With `DCUDA_NVSHMEM_BC` naming NVSHMEM's device library as LLVM bitcode
//! (`lib/libnvshmem_device.bc` of the `nvidia-nvshmem-cu13` wheel, of the
//! same version as the host library the program will load), the kernels are
//! built with `--cfg dcuda_nvshmem` and linked with it: the device runtime
//! can then reach ranks of other processes through NVSHMEM
//! (`DCUDA_TRANSPORT=nvshmem`). Such PTX is larger and is built in a target
//! directory of its own.

mod arch;
mod error;
mod nvshmem;
mod toolchain;

pub use arch::Arch;
pub use error::Error;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use toolchain::{check_components, compile_sass, sass_list};

/// Set in the nested build's environment.
const NESTED: &str = "DCUDA_BUILDER_NESTED";

/// The nvptx target triple.
pub const TARGET: &str = "nvptx64-nvidia-cuda";

/// Builds one kernel crate to PTX.
#[derive(Clone, Debug)]
pub struct PtxBuilder {
    krate: PathBuf,
    archs: Option<Vec<Arch>>,
    out_dir: Option<PathBuf>,
    target_dir: Option<PathBuf>,
    sass: Vec<Arch>,
}

/// What [`PtxBuilder::build`] produced.
#[derive(Clone, Debug)]
pub struct PtxOutput {
    /// The kernel crate's library name (the name `include_ptx!` takes).
    pub name: String,
    /// One PTX file per architecture.
    pub files: Vec<(Arch, PathBuf)>,
    /// One cubin per architecture, where SASS was asked for.
    pub cubins: Vec<(Arch, PathBuf)>,
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
            sass: Vec::new(),
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

    /// Also compile the PTX of these architectures (each one built) to
    /// SASS with `ptxas`. `DCUDA_SASS` overrides this.
    pub fn sass(mut self, archs: &[Arch]) -> Self {
        self.sass = archs.to_vec();
        self
    }

    /// The architectures to build SASS for: `DCUDA_SASS` (`1`: all of
    /// `built`, `0`: none, else a list), else the builder's; each must be
    /// one of `built`.
    pub fn selected_sass(&self, built: &[Arch]) -> Result<Vec<Arch>, Error> {
        let archs = match env::var("DCUDA_SASS").as_deref().map(str::trim) {
            Ok("1") => built.to_vec(),
            Ok("0") | Ok("") => Vec::new(),
            Ok(list) => sass_list(list)?,
            Err(_) => self.sass.clone(),
        };
        match archs.iter().find(|a| !built.contains(a)) {
            Some(a) => Err(Error::Arch(format!(
                "SASS for {a} was asked for, but only {} is built (DCUDA_ARCH)",
                built
                    .iter()
                    .map(Arch::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
            None => Ok(archs),
        }
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
                cubins: Vec::new(),
            });
        }
        let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        let llvm_bin = check_components(Path::new(&rustc))?;
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
        println!("cargo:rerun-if-env-changed=DCUDA_SASS");
        println!("cargo:rerun-if-env-changed=DCUDA_PTXAS");
        println!("cargo:rerun-if-env-changed={}", nvshmem::NVSHMEM_BC);
        let archs = self.selected_archs()?;
        let sass = self.selected_sass(&archs)?;
        let nvshmem = nvshmem::linked_bitcode(&llvm_bin, &target_dir)?;
        println!(
            "cargo:rerun-if-changed={}",
            self.krate.join("Cargo.toml").display()
        );

        let mut name = String::new();
        let (mut files, mut cubins) = (Vec::new(), Vec::new());
        for arch in archs {
            let (lib_name, ptx, deps) =
                self.compile(Path::new(&cargo), (&target_dir, arch), nvshmem.as_deref())?;
            for dep in deps {
                println!("cargo:rerun-if-changed={}", dep.display());
            }
            let dest = out_dir.join(format!("{lib_name}.{arch}.ptx"));
            fs::copy(&ptx, &dest)
                .map_err(|e| Error::Io(format!("copying {}: {e}", ptx.display())))?;
            if sass.contains(&arch) {
                let cubin = dest.with_extension("cubin");
                compile_sass(arch, &dest, &cubin)?;
                cubins.push((arch, cubin));
            }
            name = lib_name;
            files.push((arch, dest));
        }
        let index = files
            .iter()
            .map(|(arch, path)| {
                let sass = match cubins.iter().find(|c| c.0 == *arch) {
                    Some((_, cubin)) => {
                        format!("include_bytes!({:?}) as &[u8]", cubin.display().to_string())
                    }
                    None => "b\"\" as &[u8]".into(),
                };
                format!(
                    "({}u32, include_str!({:?}), {sass}),",
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
        Ok(PtxOutput {
            name,
            files,
            cubins,
        })
    }

    /// One nested cargo build; returns the library name, the PTX path and the
    /// source files it was built from.
    fn compile(
        &self,
        cargo: &Path,
        (target_dir, arch): (&Path, Arch),
        nvshmem: Option<&Path>,
    ) -> Result<(String, PathBuf, Vec<PathBuf>), Error> {
        let mut flags = vec![
            format!("-Ctarget-cpu={arch}"),
            format!("-Ctarget-feature=+ptx{}", arch.ptx_isa()),
        ];
        let mut arch_dir = arch.to_string();
        if let Some(bc) = nvshmem {
            flags.push("--cfg=dcuda_nvshmem".into());
            flags.push(format!("-Clink-arg={}", bc.display()));
            arch_dir.push_str("-nvshmem");
        }
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
            .arg(target_dir.join(arch_dir))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sass_only_for_built_architectures() {
        if env::var_os("DCUDA_SASS").is_some() {
            return; // the environment chooses; this checks the builder's choice
        }
        let b = PtxBuilder::new("/k").sass(&[Arch(90)]);
        assert_eq!(b.selected_sass(&[Arch(80), Arch(90)]).unwrap(), [Arch(90)]);
        let e = b.selected_sass(&[Arch(80)]).unwrap_err().to_string();
        assert!(
            e.contains("SASS for sm_90") && e.contains("only sm_80"),
            "{e}"
        );
        assert!(PtxBuilder::new("/k")
            .selected_sass(&[Arch(90)])
            .unwrap()
            .is_empty());
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
