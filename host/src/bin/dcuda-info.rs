//! `dcuda-info`: what dcuda would run on here, and how it is configured,
//! as `nvshmem-info -a` does for NVSHMEM. Prints the build, the GPUs the
//! driver shows, the backend that would be chosen and why, every `DCUDA_*`
//! variable with its value and default, and the transports. Exits non-zero
//! (with the error) when a variable has a value dcuda does not accept.

use dcuda::config::VARIABLES;
use dcuda::transport::TRANSPORTS;
use dcuda::Runtime;

fn main() {
    println!("dcuda {}", env!("CARGO_PKG_VERSION"));
    let mpi = cfg!(feature = "mpi");
    println!(
        "  built with MPI: {}",
        if mpi {
            "yes"
        } else {
            "no (the `mpi` feature of the dcuda crate)"
        }
    );
    match Runtime::visible_gpus() {
        None => println!("  CUDA driver: not found"),
        Some(n) => println!("  CUDA driver: found, {n} GPU(s) visible to this process"),
    }
    println!();
    println!("variables:");
    for v in VARIABLES {
        let value = v.value().unwrap_or_else(|| "(unset)".into());
        println!("  {:<24} = {value}", v.name);
        println!(
            "      {}; accepts {}; default {}",
            v.meaning, v.accepts, v.default
        );
    }
    println!();
    println!("transports:");
    for t in TRANSPORTS {
        let available = match *t {
            "mpi" if !mpi => "not built in",
            _ => "available",
        };
        println!("  {t}: {available}");
    }
    println!();
    match Runtime::builder().quiet().build() {
        Ok(rt) => {
            let d = rt.device_info();
            let detail = match d.compute_capability {
                Some(cc) => format!(
                    "device {}: {} (sm_{cc}, {} SMs)",
                    d.ordinal, d.name, d.multiprocessors
                ),
                None => d.name.clone(),
            };
            println!("backend: {}, {detail}, chosen {}", d.backend, rt.choice());
            match rt.job() {
                Some(j) => println!(
                    "job: process {} of {} (node {} of {}), transport {}",
                    j.process(),
                    j.processes(),
                    j.node(),
                    j.nodes(),
                    j.transport_name()
                ),
                None => println!("job: a single process"),
            }
        }
        Err(e) => {
            eprintln!("dcuda-info: {e}");
            std::process::exit(1);
        }
    }
}
