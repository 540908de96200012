//! Moving data in and out: a host array scattered into the ranks' parts
//! (each between two ghost elements), smoothed by a rank kernel for a few
//! steps with a halo exchange before each, and gathered back; process 0
//! checks the result against the host, bit for bit. Runs alone or under
//! `mpirun -np N`.

use dcuda::plan::{HaloPlan, Part, Placement, ScatterPlan, Split};
use dcuda::{RunConfig, Runtime};
use dcuda_rank_kernels::smooth::{SmoothArgs, SMOOTH_LINE};

/// Values each rank owns, and smoothing steps.
const OWN: usize = 1000;
const STEPS: usize = 5;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    dcuda::log::init(); // dcuda's messages to standard error
    let rt = Runtime::new()?;
    let module = rt.load(&dcuda_examples::rank_ptx())?;
    let config = RunConfig::new(64).ranks(4);
    // ANCHOR: plans
    let info = module.rank_info(&SMOOTH_LINE, &config)?;
    let n = OWN * info.rank_count as usize;
    let at = Placement::new(&rt, info.ranks_on_device)?;
    // Each rank's part: a ghost, its OWN values, a ghost.
    let part = Part::of(OWN + 2).data_at(1);
    let load = ScatterPlan::<f32>::new(&at, Split::Block, n, 0, part)?;
    let halo = HaloPlan::<f32>::line(&at, OWN + 2, 1, false)?;
    // ANCHOR_END: plans
    let root = at.process() == 0;
    let input: Vec<f32> = (0..n).map(|i| ((i * 37) % 101) as f32).collect();
    let mut parts = rt.alloc::<f32>(info.ranks_on_device as usize * (OWN + 2))?;
    let next = rt.alloc::<f32>(parts.len())?;
    // ANCHOR: use
    load.scatter(root.then_some(&input[..]), &mut parts)?;
    let args = SmoothArgs {
        parts: parts.slice(),
        next: next.slice(),
        own: OWN as u32,
    };
    for _ in 0..STEPS {
        halo.exchange(&mut parts)?; // the ghosts get the neighbours' values
                                    // SAFETY: both buffers hold this process's ranks' parts.
        unsafe { module.run(&SMOOTH_LINE, &config, &args)? };
    }
    let mut output = vec![0f32; if root { n } else { 0 }];
    load.gather(&parts, root.then_some(&mut output[..]))?;
    // ANCHOR_END: use
    if root {
        print!("{}{}", load.explain(), halo.explain());
        let want = reference(&input);
        if let Some(i) = (0..n).find(|&i| output[i].to_bits() != want[i].to_bits()) {
            return Err(format!("element {i} is {}, the host says {}", output[i], want[i]).into());
        }
        println!(
            "moving_data: {n} values on {} ranks of {} processes, {STEPS} steps: correct on the {}",
            info.rank_count,
            at.processes(),
            rt.backend()
        );
    }
    Ok(())
}

/// The same steps on the host, with zeros past both ends.
fn reference(input: &[f32]) -> Vec<f32> {
    let mut a = input.to_vec();
    for _ in 0..STEPS {
        let at = |i: isize| a.get(i as usize).copied().unwrap_or(0.0);
        a = (0..a.len() as isize)
            .map(|i| (at(i - 1) + at(i) + at(i + 1)) / 3.0)
            .collect();
    }
    a
}
