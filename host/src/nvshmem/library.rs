//! NVSHMEM's host library, loaded at run time like the CUDA driver, and
//! its start-up with a unique id that process 0 makes and the job's
//! transport hands to every process.
//!
//! The C API's `nvshmemx_init_attr` is an inline wrapper over the device
//! library's initialiser; a program that loads its kernels as PTX calls
//! `nvshmemx_hostlib_init_attr` instead, and `nvshmemx_cumodule_init` for
//! each module, which is what is done here.

use crate::error::{Error, Result};
use crate::transport::{all_gather, Job, SETUP_CHANNEL};
use libloading::{Library, Symbol};
use std::ffi::c_void;
use std::path::PathBuf;

/// `nvshmemx_uniqueid_t` (128 bytes).
#[repr(C)]
#[derive(Clone, Copy)]
struct UniqueId {
    version: i32,
    internal: [u8; 124],
}

/// `nvshmemx_uniqueid_args_t`.
#[repr(C)]
struct UniqueIdArgs {
    version: i32,
    id: *mut UniqueId,
    myrank: i32,
    nranks: i32,
}

/// `nvshmemx_init_args_t`.
#[repr(C)]
struct InitArgs {
    version: i32,
    uid_args: UniqueIdArgs,
    content: [u8; 96],
}

/// `nvshmemx_init_attr_t`.
#[repr(C)]
struct InitAttr {
    version: i32,
    mpi_comm: *mut c_void,
    args: InitArgs,
}

const _: () = assert!(std::mem::size_of::<UniqueId>() == 128);
const _: () = assert!(std::mem::size_of::<UniqueIdArgs>() == 24);
const _: () = assert!(std::mem::size_of::<InitArgs>() == 128);
const _: () = assert!(std::mem::size_of::<InitAttr>() == 144);

/// The version words NVSHMEM's initialisers write: `(1 << 16) + size`.
const fn version_of<T>() -> i32 {
    (1 << 16) + std::mem::size_of::<T>() as i32
}

/// `NVSHMEMX_INIT_WITH_UNIQUEID`.
const INIT_WITH_UNIQUEID: u32 = 1 << 3;

/// Where the host library is looked for when `DCUDA_NVSHMEM_LIB` is unset:
/// the loader's search path, then the `nvidia-nvshmem-cu13` wheel's folder
/// in the usual Python package folders.
fn candidates() -> Vec<PathBuf> {
    const NAME: &str = "libnvshmem_host.so.3";
    let mut found = vec![PathBuf::from(NAME)];
    let roots = ["/usr/local/lib", "/usr/lib", "/opt/conda/lib"];
    for root in roots {
        let Ok(entries) = std::fs::read_dir(root) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("python3") {
                for packages in ["dist-packages", "site-packages"] {
                    let lib = e
                        .path()
                        .join(packages)
                        .join("nvidia/nvshmem/lib")
                        .join(NAME);
                    if lib.is_file() {
                        found.push(lib);
                    }
                }
            }
        }
    }
    found
}

/// The loaded host library. Never unloaded: NVSHMEM's threads may run
/// until the process ends.
pub(crate) struct Nvshmem {
    lib: std::mem::ManuallyDrop<Library>,
    /// Where it was loaded from.
    pub path: String,
}

impl Nvshmem {
    /// Loads the host library: `DCUDA_NVSHMEM_LIB`, else the first of
    /// [`candidates`] that loads. The error lists what was tried.
    pub fn load() -> Result<Nvshmem> {
        let tried = match crate::config::NVSHMEM_LIB.value() {
            Some(path) => vec![PathBuf::from(path)],
            None => candidates(),
        };
        let mut why = Vec::new();
        for path in &tried {
            // SAFETY: loading runs the library's initialisers, which
            // NVSHMEM's host library keeps to itself.
            match unsafe { Library::new(path) } {
                Ok(lib) => {
                    return Ok(Nvshmem {
                        lib: std::mem::ManuallyDrop::new(lib),
                        path: path.display().to_string(),
                    })
                }
                Err(e) => why.push(format!("{}: {e}", path.display())),
            }
        }
        Err(Error::Nvshmem {
            call: "load",
            reason: format!(
                "NVSHMEM's host library was not found ({}); set DCUDA_NVSHMEM_LIB to libnvshmem_host.so.3 (pip install nvidia-nvshmem-cu13)",
                why.join("; ")
            ),
        })
    }

    /// A function of the library.
    fn sym<T>(&self, name: &'static str) -> Result<Symbol<'_, T>> {
        // SAFETY: each caller names the C signature of `name` as NVSHMEM's
        // headers declare it.
        unsafe { self.lib.get(name.as_bytes()) }.map_err(|e| Error::Nvshmem {
            call: name,
            reason: format!("not in {}: {e}", self.path),
        })
    }

    /// Starts NVSHMEM in every process of `job` (each calls it, with its
    /// GPU's context current): process 0's unique id goes to all over the
    /// job's transport, and each process becomes the PE of its index.
    pub fn init(&self, job: &Job) -> Result<()> {
        let (me, n) = (job.process(), job.processes());
        let mut id = UniqueId {
            version: version_of::<UniqueId>(),
            internal: [0; 124],
        };
        if me == 0 {
            let get: Symbol<unsafe extern "C" fn(*mut UniqueId) -> i32> =
                self.sym("nvshmemx_get_uniqueid")?;
            // SAFETY: a unique id with its version set, written by NVSHMEM.
            check("nvshmemx_get_uniqueid", unsafe { get(&mut id) })?;
        }
        let mine = if me == 0 {
            id.internal.to_vec()
        } else {
            Vec::new()
        };
        let all = all_gather(&*job.transport, SETUP_CHANNEL, mine)?;
        match all.first() {
            Some(first) if first.len() == id.internal.len() => id.internal.copy_from_slice(first),
            _ => {
                return Err(Error::Nvshmem {
                    call: "init",
                    reason: "process 0 sent no NVSHMEM unique id".into(),
                })
            }
        }
        let mut attr = InitAttr {
            version: version_of::<InitAttr>(),
            mpi_comm: std::ptr::null_mut(),
            args: InitArgs {
                version: version_of::<InitArgs>(),
                uid_args: UniqueIdArgs {
                    version: version_of::<UniqueIdArgs>(),
                    id: std::ptr::null_mut(),
                    myrank: -1,
                    nranks: -1,
                },
                content: [0; 96],
            },
        };
        let set: Symbol<unsafe extern "C" fn(i32, i32, *const UniqueId, *mut InitAttr) -> i32> =
            self.sym("nvshmemx_set_attr_uniqueid_args")?;
        // SAFETY: `id` and `attr` outlive the initialisation below.
        check("nvshmemx_set_attr_uniqueid_args", unsafe {
            set(me as i32, n as i32, &id, &mut attr)
        })?;
        let init: Symbol<unsafe extern "C" fn(u32, *mut InitAttr) -> i32> =
            self.sym("nvshmemx_hostlib_init_attr")?;
        // SAFETY: as above; NVSHMEM reads the attributes during the call.
        check("nvshmemx_hostlib_init_attr", unsafe {
            init(INIT_WITH_UNIQUEID, &mut attr)
        })?;
        let my_pe: Symbol<unsafe extern "C" fn() -> i32> = self.sym("nvshmem_my_pe")?;
        let n_pes: Symbol<unsafe extern "C" fn() -> i32> = self.sym("nvshmem_n_pes")?;
        // SAFETY: no arguments; NVSHMEM is initialised.
        let (pe, pes) = unsafe { (my_pe(), n_pes()) };
        if pe != me as i32 || pes != n as i32 {
            return Err(Error::Nvshmem {
                call: "init",
                reason: format!("process {me} of {n} became PE {pe} of {pes}"),
            });
        }
        Ok(())
    }

    /// `nvshmem_malloc(bytes)`: collective, the same size on every PE.
    pub fn malloc(&self, bytes: usize) -> Result<u64> {
        let malloc: Symbol<unsafe extern "C" fn(usize) -> *mut c_void> =
            self.sym("nvshmem_malloc")?;
        // SAFETY: a size; NVSHMEM returns a symmetric address or null.
        let at = unsafe { malloc(bytes) };
        if at.is_null() {
            return Err(Error::Nvshmem {
                call: "nvshmem_malloc",
                reason: format!("no symmetric heap of {bytes} bytes: set NVSHMEM_SYMMETRIC_SIZE to more than DCUDA_NVSHMEM_HEAP"),
            });
        }
        Ok(at as u64)
    }

    /// `nvshmemx_cumodule_init(module)`: fills the module's NVSHMEM device
    /// state. Fails for a module built without NVSHMEM.
    pub fn module_init(&self, module: u64) -> Result<()> {
        let init: Symbol<unsafe extern "C" fn(*mut c_void) -> i32> =
            self.sym("nvshmemx_cumodule_init")?;
        // SAFETY: a module handle of this process's context.
        check("nvshmemx_cumodule_init", unsafe {
            init(module as *mut c_void)
        })
    }

    /// `nvshmemx_hostlib_finalize()`: collective, with this process's GPU
    /// context current.
    pub fn finalize(&self) {
        if let Ok(fin) = self.sym::<unsafe extern "C" fn()>("nvshmemx_hostlib_finalize") {
            // SAFETY: NVSHMEM was started; every module was finalised.
            unsafe { fin() };
        }
    }

    /// `nvshmemx_cumodule_finalize(module)`, before the module is unloaded.
    pub fn module_finalize(&self, module: u64) {
        if let Ok(fin) =
            self.sym::<unsafe extern "C" fn(*mut c_void) -> i32>("nvshmemx_cumodule_finalize")
        {
            // SAFETY: a module that `module_init` set up.
            unsafe { fin(module as *mut c_void) };
        }
    }
}

/// An NVSHMEM status as a result.
fn check(call: &'static str, status: i32) -> Result<()> {
    if status == 0 {
        Ok(())
    } else {
        Err(Error::Nvshmem {
            call,
            reason: format!("returned {status}"),
        })
    }
}
