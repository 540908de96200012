//! NVSHMEM's device bitcode for the kernels (`DCUDA_NVSHMEM_BC`): checked,
//! and trimmed with `opt` to what the kernels call before the bitcode
//! linker sees it.

use crate::Error;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// NVSHMEM's device bitcode to link the kernels with, if set.
pub(crate) const NVSHMEM_BC: &str = "DCUDA_NVSHMEM_BC";

/// The trimmed bitcode to link, in `target_dir`, where `DCUDA_NVSHMEM_BC`
/// is set.
pub(crate) fn linked_bitcode(llvm_bin: &Path, target_dir: &Path) -> Result<Option<PathBuf>, Error> {
    let Some(bc) = bitcode()? else {
        return Ok(None);
    };
    fs::create_dir_all(target_dir)
        .map_err(|e| Error::Io(format!("{}: {e}", target_dir.display())))?;
    trim(llvm_bin, &bc, target_dir).map(Some)
}

/// `DCUDA_NVSHMEM_BC`, checked to name a file.
fn bitcode() -> Result<Option<PathBuf>, Error> {
    let Some(path) = env::var_os(NVSHMEM_BC).filter(|p| !p.is_empty()) else {
        return Ok(None);
    };
    let path = PathBuf::from(path);
    if !path.is_file() {
        return Err(Error::Io(format!(
            "{NVSHMEM_BC}={} is not a file (NVSHMEM's libnvshmem_device.bc, from the nvidia-nvshmem-cu13 wheel)",
            path.display()
        )));
    }
    println!("cargo:rerun-if-changed={}", path.display());
    Ok(Some(path))
}

/// What the kernels use of NVSHMEM's device library (`dcuda_device`'s
/// `arch/nvshmem.rs`) and the globals its host library looks up in a
/// module (`nvshmemx_cumodule_init`).
const NVSHMEM_KEEP: &[&str] = &[
    "nvshmemx_putmem_block",
    "nvshmemx_getmem_block",
    "nvshmem_fence",
    "nvshmem_quiet",
    "nvshmem_uint32_atomic_add",
    "nvshmem_ptr",
    "nvshmemi_device_state_d",
    "nvshmemi_device_lib_version_d",
    "nvshmemi_ibgda_device_state_d",
];

/// NVSHMEM's device bitcode `bc` less what the kernels cannot reach
/// (`opt` internalize and global DCE), in `dir`; returns its path. The
/// bitcode linker optimises everything it links before it drops what is
/// unused, which takes minutes for the whole library (31 MB) and seconds
/// for this. The file is named by the source's length and the kept names,
/// so that another library or list makes another file.
fn trim(llvm_bin: &Path, bc: &Path, dir: &Path) -> Result<PathBuf, Error> {
    let len = fs::metadata(bc).map(|m| m.len()).unwrap_or(0);
    // FNV-1a of the kept names.
    let names = NVSHMEM_KEEP.join(",");
    let key = names.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    let dest = dir.join(format!("nvshmem-device-{len}-{key:016x}.bc"));
    let fresh = |p: &Path| fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(made), Some(source)) = (fresh(&dest), fresh(bc)) {
        if made >= source {
            return Ok(dest);
        }
    }
    let tmp = dest.with_extension(format!("{}.tmp", std::process::id()));
    let out = Command::new(llvm_bin.join("opt"))
        .arg(format!("--internalize-public-api-list={names}"))
        .args(["--passes=internalize,globaldce"])
        .arg(bc)
        .arg("-o")
        .arg(&tmp)
        .output()
        .map_err(|e| Error::Io(format!("running opt on {}: {e}", bc.display())))?;
    if !out.status.success() {
        return Err(Error::Io(format!(
            "opt failed on {}:\n{}",
            bc.display(),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    fs::rename(&tmp, &dest).map_err(|e| Error::Io(format!("{}: {e}", dest.display())))?;
    Ok(dest)
}
