//! The NVSHMEM route between processes (`world_checks nvshmem`).

use super::{Check, Run};
use dcuda::RunConfig;
use dcuda_rank_kernels::runtime_checks::*;

impl Run<'_> {
    /// The ring's notified puts and the neighbours' notified gets between
    /// processes, with `DCUDA_TRANSPORT=nvshmem`: where NVSHMEM runs (GPUs;
    /// `WORLD_CHECKS_NVSHMEM=1` says it must) the hosts carry none of them,
    /// elsewhere (the emulator) they carry them; the data is right either
    /// way.
    pub(super) fn nvshmem_route(&self, process: u32) -> Check {
        let uses = self.rt.uses_nvshmem();
        if std::env::var("WORLD_CHECKS_NVSHMEM").is_ok_and(|v| v == "1") && !uses {
            return Err("NVSHMEM was asked for (WORLD_CHECKS_NVSHMEM=1) but does not run".into());
        }
        let (data, out) = self.buffers(300);
        let mut reports = Vec::new();
        for (kernel, words, rounds) in [(&RING_EXCHANGE, 300, 20), (&NEIGHBOUR_GET, 70, 0)] {
            let args = CheckArgs {
                data: data.slice(),
                out: out.slice(),
                words,
                rounds,
                case: 0,
            };
            let config = RunConfig::new(64).ranks(self.ranks);
            // SAFETY: the buffers hold 300 words per rank of this process.
            reports.push(
                unsafe { self.module.run(kernel, &config, &args) }.map_err(|e| e.to_string())?,
            );
            let got = out.download().map_err(|e| e.to_string())?;
            let n = self.world;
            if rounds > 0 {
                self.expect("ring_exchange through NVSHMEM", &got, words, |me, k| {
                    (me + n - 1) % n * 1000 + rounds - 1 + k
                })?;
            } else {
                self.expect("neighbour_get through NVSHMEM", &got, words, |me, k| {
                    (me + n - 1) % n * 7 + k
                })?;
            }
        }
        let carried: u64 = reports.iter().map(|r| r.host_transfers).sum();
        if uses && carried != 0 {
            return Err(format!(
                "the hosts carried {carried} window accesses that NVSHMEM should have"
            ));
        }
        if !uses && self.world > self.ranks && carried == 0 {
            return Err("the hosts carried no window accesses, and NVSHMEM does not run".into());
        }
        let way = if uses {
            "through NVSHMEM"
        } else {
            "through the hosts"
        };
        println!("world_checks: process {process}: window accesses between processes {way}");
        Ok(())
    }
}
