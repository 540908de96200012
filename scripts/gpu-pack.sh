#!/usr/bin/env bash
# Packs what a GPU run needs into .gpu-bundle/ (git-ignored): release builds
# of every end-to-end test binary and example, with PTX for sm_70 and sm_90
# embedded, and the runner. Then, with the device tool:
#   run(command="bash .gpu-bundle/gpu-run.sh", carry=[".gpu-bundle"])
# The binaries hold their kernels' PTX and SASS (hundreds of MB in all),
# more than the device tool carries (64 MiB): GPU_PACK_XZ=1 strips them and
# packs the bundle into .gpu-bundle/bundle.txz, run as
#   run(command="bash .gpu-bundle/unpack.sh gpu-run.sh", carry=[".gpu-bundle"])
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
export DCUDA_ARCH=${DCUDA_ARCH:-sm_70,sm_90}
# SASS for Hopper too: the GPU machine's driver starts with an empty cache
# and compiles the test module's PTX for a minute otherwise.
export DCUDA_SASS=${DCUDA_SASS:-sm_90}
export DCUDA_PTXAS=${DCUDA_PTXAS:-$PWD/.tools/cuda-nvcc/nvidia/cu13/bin/ptxas}

bundle=.gpu-bundle
rm -rf "$bundle"
mkdir -p "$bundle/tests" "$bundle/examples"

# Test binaries of the crates whose tests launch kernels (gpu-run.sh's;
# gpu-multi.sh runs none of them: GPU_PACK_NO_TESTS=1 skips them, which
# keeps the packed bundle under the device tool's 64 MiB).
[ "${GPU_PACK_NO_TESTS:-0}" = 1 ] || cargo test --release -p dcuda-tests -p dcuda-examples --no-run --message-format=json 2>/dev/null \
  | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    # Test targets only: the test harnesses of binaries hold no tests.
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"] and m["target"]["kind"] != ["bin"]:
        print(m["target"]["name"], m["executable"])
' | while read -r name exe; do
      # examples_run starts the examples by their paths on this machine;
      # gpu-run.sh runs the packed examples itself.
      # world and plans start mpirun on this machine's builds (their
      # paths are compiled in); gpu-world.sh runs the multi-process
      # programs itself, and gpu-run.sh runs plan_checks alone.
      case $name in examples_run|world|plans|stress|run|info) ;; *) cp "$exe" "$bundle/tests/$name" ;; esac
    done

cargo build --release -p dcuda-examples -p dcuda-tests --bins
cargo build --release -p dcuda-bench
# Applications: every package under apps/, with its baselines.
for app in apps/*/; do
  cargo build --release --manifest-path "$app/Cargo.toml" --bins
done
mkdir -p "$bundle/bench"
cp target/release/bench target/release/bench_world target/release/bench_collectives target/release/bench_chunks \
  target/release/bench_world_collectives target/release/bench_world_allreduce target/release/bench_messages \
  target/release/bench_typed target/release/bench_plans target/release/bench_probes "$bundle/bench/"
mkdir -p "$bundle/baselines"
cp bench/baselines/*.cu bench/baselines/*.cuh "$bundle/baselines/"
for bin in examples/src/bin/* tests/src/bin/* apps/*/src/bin/*; do
  name=$(basename "$bin" .rs)
  cp "target/release/$name" "$bundle/examples/$name"
done
# Benchmarks of an earlier commit (built by scripts/gpu-pack-before.sh), run
# beside this one's on the same machine for a before/after comparison.
if [ -d .gpu-before ]; then
  cp -r .gpu-before "$bundle/bench-before"
fi
cp scripts/gpu-*.sh "$bundle/"
mkdir -p "$bundle/baselines"
cp apps/*/baselines/*.cu "$bundle/baselines/"
git rev-parse --short HEAD > "$bundle/COMMIT" 2>/dev/null || echo unknown > "$bundle/COMMIT"
du -sh "$bundle"
ls "$bundle"/tests "$bundle"/examples

if [ "${GPU_PACK_XZ:-0}" = 1 ]; then
  strip "$bundle"/tests/* "$bundle"/examples/* "$bundle"/bench/* 2>/dev/null || true
  packed=$(mktemp)
  # The binaries embed the same modules: a dictionary that spans several
  # of them packs the whole bundle into about 10 MB (xz -6 alone: 75 MB,
  # over the device tool's limit); unpacking takes 512 MiB of memory.
  tar cf - -C "$bundle" . | xz -T4 --lzma2=preset=6,dict=512MiB > "$packed"
  rm -rf "$bundle" && mkdir -p "$bundle"
  mv "$packed" "$bundle/bundle.txz"
  cat > "$bundle/unpack.sh" <<'UNPACK'
#!/usr/bin/env bash
# Unpacks bundle.txz next to it and runs one of its scripts with the rest
# of the arguments: bash .gpu-bundle/unpack.sh gpu-run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/unpacked" && tar xJf "$here/bundle.txz" -C "$here/unpacked"
script=$1; shift
exec bash "$here/unpacked/$script" "$@"
UNPACK
  du -sh "$bundle"
fi
