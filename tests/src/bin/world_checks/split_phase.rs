//! The split-phase allreduce across processes: on the world, on each
//! process's ranks (the device communicator) and on a split whose ranks
//! are on every process.

use super::{Check, Run};
use dcuda::RunConfig;
use dcuda_rank_kernels::split_phase::{split_value, SplitArgs, SPLIT_ALLREDUCE, SPLIT_RESULTS};

impl Run<'_> {
    pub(super) fn split_phase(&self) -> Check {
        let rounds = 3u32;
        let out = self
            .rt
            .alloc::<u64>((self.ranks * rounds) as usize * SPLIT_RESULTS)
            .map_err(|e| e.to_string())?;
        let args = SplitArgs {
            rounds,
            case: 0,
            out: out.slice(),
        };
        let config = RunConfig::new(64).ranks(self.ranks);
        // SAFETY: out holds SPLIT_RESULTS words per rank and round.
        unsafe { self.module.run(&SPLIT_ALLREDUCE, &config, &args) }.map_err(|e| e.to_string())?;
        let out = out.download().map_err(|e| e.to_string())?;
        for local in 0..self.ranks {
            let me = self.first + local;
            // World, this process's ranks, the world's ranks of my parity.
            let comms: [Vec<u32>; 3] = [
                (0..self.world).collect(),
                (self.first..self.first + self.ranks).collect(),
                (0..self.world).filter(|q| q % 2 == me % 2).collect(),
            ];
            for round in 0..rounds {
                let at = ((local * rounds + round) as usize) * SPLIT_RESULTS;
                for (c, members) in comms.iter().enumerate() {
                    let (sum, blocking, min) =
                        (out[at + 3 * c], out[at + 3 * c + 1], out[at + 3 * c + 2]);
                    let exact: f64 = members.iter().map(|&q| split_value(q, round)).sum();
                    let got = f64::from_bits(sum);
                    if sum != blocking || (got - exact).abs() > 1e-9 || min != members[0] as u64 {
                        return Err(format!(
                            "split-phase allreduce, rank {me}, round {round}, communicator {c}: sum {got} (bits {sum:#x}, blocking {blocking:#x}, exact {exact}), min {min} (want {})",
                            members[0]
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}
