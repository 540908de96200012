//! Each intrinsic emits the PTX instruction its name promises: read from the
//! probe kernels of `kernels-ptx/smoke/src/probes.rs`, for every embedded
//! architecture. Needs no GPU.

use dcuda_tests::smoke_ptx;

/// The body of kernel `name` in `ptx`.
fn entry<'a>(ptx: &'a str, name: &str) -> &'a str {
    let start = ptx
        .find(&format!(".entry {name}("))
        .unwrap_or_else(|| panic!("no kernel {name} in the PTX"));
    let rest = &ptx[start..];
    // The body ends at the first closing brace in column 0.
    let end = rest.find("\n}").map(|e| e + 2).unwrap_or(rest.len());
    &rest[..end]
}

/// The body of kernel `name` and of every function it calls, transitively:
/// a large kernel's body may sit in a function of its own.
fn call_tree(ptx: &str, name: &str) -> String {
    let mut seen = vec![name.to_string()];
    let mut text = entry(ptx, name).to_string();
    let mut i = 0;
    while i < seen.len() {
        let body = if i == 0 {
            entry(ptx, name).to_string()
        } else {
            function(ptx, &seen[i]).unwrap_or_default().to_string()
        };
        for callee in body
            .lines()
            .filter_map(|l| l.trim().strip_prefix("call.uni "))
            .filter_map(|c| c.split([',', ' ', '(']).next())
        {
            if !seen.iter().any(|s| s == callee) {
                seen.push(callee.to_string());
                text.push_str(function(ptx, callee).unwrap_or_default());
            }
        }
        i += 1;
    }
    text
}

/// The body of device function `name`, if the PTX defines it.
fn function<'a>(ptx: &'a str, name: &str) -> Option<&'a str> {
    let start = ptx
        .find(&format!(".func {name}("))
        .or_else(|| ptx.find(&format!(") {name}(")))?;
    let rest = &ptx[start..];
    let end = rest.find("\n}").map(|e| e + 2).unwrap_or(rest.len());
    Some(&rest[..end])
}

const EXPECTED: &[(&str, &[&str])] = &[
    (
        "probe_indices",
        &[
            "%tid.x",
            "%tid.y",
            "%tid.z",
            "%ctaid.x",
            "%ntid.y",
            "%nctaid.z",
        ],
    ),
    ("probe_sync_threads", &["bar.sync 0;"]),
    ("probe_fence_block", &["fence.acq_rel.cta;"]),
    ("probe_fence_gpu", &["fence.acq_rel.gpu;"]),
    ("probe_fence_sys", &["fence.acq_rel.sys;"]),
    ("probe_fence_sc_gpu", &["fence.sc.gpu;"]),
    ("probe_load_acquire_gpu", &["ld.acquire.gpu.u32"]),
    ("probe_load_acquire_sys", &["ld.acquire.sys.u64"]),
    ("probe_load_relaxed_gpu", &["ld.relaxed.gpu.u32"]),
    ("probe_store_release_gpu", &["st.release.gpu.u32"]),
    ("probe_store_release_sys", &["st.release.sys.u32"]),
    ("probe_store_relaxed_sys", &["st.relaxed.sys.u64"]),
    ("probe_fetch_add_relaxed_gpu", &["atom.relaxed.gpu.add.u32"]),
    ("probe_fetch_add_acq_rel_sys", &["atom.acq_rel.sys.add.u64"]),
    (
        "probe_fetch_add_release_block",
        &["atom.release.cta.add.u32"],
    ),
    ("probe_swap_acquire_gpu", &["atom.acquire.gpu.exch.b32"]),
    ("probe_swap_acq_rel_sys", &["atom.acq_rel.sys.exch.b64"]),
    (
        "probe_compare_exchange_acq_rel_gpu",
        &["atom.acq_rel.gpu.cas.b32"],
    ),
    (
        "probe_compare_exchange_relaxed_sys",
        &["atom.relaxed.sys.cas.b64"],
    ),
    ("probe_nanosleep", &["nanosleep.u32"]),
    ("probe_prefetch_l1", &["prefetch.L1 ["]),
    ("probe_sqrt", &["sqrt.rn.f64"]),
    // The inline form (one space), not LLVM's own `mov.b64\t`.
    ("probe_opaque", &["mov.b64 %", "div.rn.f64"]),
    ("probe_global_timer", &["%globaltimer"]),
    (
        "probe_shared",
        &[
            "st.shared.f64",
            "ld.shared.f64",
            "dcuda_shared_PROBE_TILE",
            "bar.sync 0;",
        ],
    ),
    ("probe_trap", &["trap;"]),
    ("probe_add_release_gpu", &["red.release.gpu.add.u32"]),
    ("probe_add_relaxed_sys", &["red.relaxed.sys.add.u64"]),
    ("probe_exit_thread", &["exit;"]),
];

#[test]
fn every_intrinsic_emits_its_instruction() {
    let ptx = smoke_ptx();
    assert!(!ptx.archs().is_empty());
    for arch in ptx.archs() {
        let text = ptx.text(arch).unwrap();
        for (kernel, needles) in EXPECTED {
            let body = entry(text, kernel);
            for needle in *needles {
                assert!(
                    body.contains(needle),
                    "sm_{arch}: {kernel} lacks `{needle}`:\n{body}"
                );
            }
        }
    }
}

#[test]
fn no_intrinsic_uses_a_state_space_that_excludes_mapped_host_memory() {
    // Scoped loads, stores and atomics use generic addresses, so the same
    // call reaches device memory and mapped host memory.
    let ptx = smoke_ptx();
    for arch in ptx.archs() {
        let text = ptx.text(arch).unwrap();
        for bad in [
            ".acquire.gpu.global",
            ".release.sys.global",
            ".relaxed.gpu.global.add",
            ".sys.global.add",
        ] {
            assert!(!text.contains(bad), "sm_{arch}: found `{bad}`");
        }
    }
}

#[test]
fn ptx_declares_the_requested_target() {
    let ptx = smoke_ptx();
    for arch in ptx.archs() {
        assert!(
            ptx.text(arch)
                .unwrap()
                .contains(&format!(".target sm_{arch}")),
            "sm_{arch}"
        );
    }
}

#[test]
fn a_per_thread_region_costs_no_barrier_and_no_shared_memory() {
    // `uniform_region` has uniform code and one per-thread region: the rank
    // DSL adds nothing around it. The only barrier and shared stores are
    // the prologue's, which copies the run's context and the arguments
    // into shared memory (every rank kernel has it).
    let ptx = dcuda_tests::rank_ptx();
    for arch in ptx.archs() {
        let body = entry(ptx.text(arch).unwrap(), "uniform_region");
        let barriers = body.matches("barrier.sync").count() + body.matches("bar.sync").count();
        assert_eq!(barriers, 1, "sm_{arch}: uniform_region:\n{body}");
        let prologue_end = body.find("barrier.sync").or(body.find("bar.sync")).unwrap();
        for unwanted in ["ld.shared", "st.shared", "shfl"] {
            assert!(
                !body[prologue_end..].contains(unwanted),
                "sm_{arch}: uniform_region has `{unwanted}` after its prologue:\n{body}"
            );
        }
    }
}

#[test]
fn collectives_use_warp_shuffles() {
    let ptx = dcuda_tests::rank_ptx();
    for arch in ptx.archs() {
        let body = entry(ptx.text(arch).unwrap(), "int_collectives");
        for needle in [
            "shfl.sync.bfly.b32",
            "shfl.sync.up.b32",
            "shfl.sync.idx.b32",
            "barrier.sync 0;",
        ] {
            assert!(
                body.contains(needle),
                "sm_{arch}: int_collectives lacks `{needle}`"
            );
        }
    }
}

#[test]
fn rank_kernels_use_the_non_aligned_barrier() {
    // Thread 0 reaches a collective's barrier after the rest of its warp:
    // only the non-aligned `barrier.sync` allows that.
    let ptx = dcuda_tests::rank_ptx();
    for arch in ptx.archs() {
        for kernel in [
            "int_collectives",
            "ring_exchange",
            "matching",
            "block_stats",
        ] {
            let body = call_tree(ptx.text(arch).unwrap(), kernel);
            assert!(body.contains("barrier.sync 0;"), "sm_{arch}: {kernel}");
            assert!(
                !body.contains("bar.sync"),
                "sm_{arch}: {kernel} uses the aligned barrier"
            );
        }
    }
}

#[test]
fn the_thread_loop_and_the_block_copy_converge_the_warp_first() {
    // After a leader's turn thread 0 runs apart from the rest of its warp,
    // and a loop entered so runs twice in that warp, once per part: a 1 MiB
    // receive's copy took twice a put's until both converged it.
    let ptx = dcuda_tests::rank_ptx();
    for arch in ptx.archs() {
        let text = ptx.text(arch).unwrap();
        let region = entry(text, "uniform_region");
        assert!(
            region.contains("bar.warp.sync -1;"),
            "sm_{arch}: uniform_region's per-thread region does not converge the warp:\n{region}"
        );
        let name = text
            .lines()
            .filter_map(|l| l.strip_prefix(".func "))
            .map(|l| l.trim_end_matches('('))
            .find(|n| n.ends_with("10block_copy"))
            .unwrap_or_else(|| panic!("sm_{arch}: no block copy in the rank PTX"));
        let copy = function(text, name).unwrap();
        // Its first access of memory other than its parameters.
        let first_load = copy
            .match_indices("\tld.")
            .find(|(at, _)| !copy[*at..].starts_with("\tld.param"))
            .map_or(copy.len(), |(at, _)| at);
        assert!(
            copy[..first_load].contains("bar.warp.sync -1;"),
            "sm_{arch}: the block copy does not converge the warp before copying:\n{copy}"
        );
    }
}
