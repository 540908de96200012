// Which part of a one-word grid barrier costs what, over every co-resident
// block of one GPU: cooperative groups' grid.sync() against the same
// protocol written with the atomics dcuda's device barrier uses, one
// difference at a time. Block 0 times each batch with %globaltimer.
//   barrier_variants MODE BLOCKS THREADS BATCHES ITERS [SHARED_BYTES]
// SHARED_BYTES of dynamic shared memory a block bounds the blocks an SM
// holds, as a large kernel's registers do; stderr says on how many SMs the
// blocks ran.
// modes: 0 grid.sync(); 1 atom.acq_rel + ld.acquire polls (dcuda's);
// 2 mode 1 + dcuda's poll bookkeeping (abort flag and clock every 32
// polls); 3 atom.acq_rel + ld.relaxed polls + one ld.acquire;
// 4 fence + relaxed atom + ld.relaxed polls + one ld.acquire (grid.sync's
// own steps, by hand); 5 mode 2 with the block's state (its index, the
// broadcast slot's parity) in local memory, loaded before the arrival and
// stored after, as dcuda's Block struct is; 6 mode 2 with the atomic and
// the polls on a global-space address (ld.global, atom.global) instead of
// a generic one.
// prints one line per batch: mode,blocks,batch,ns_per_op
#include <cooperative_groups.h>
#include "../baselines/common.cuh"
namespace cg = cooperative_groups;

__device__ unsigned atom_acq_rel(unsigned* w, unsigned v) {
  unsigned old;
  asm volatile("atom.acq_rel.gpu.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(w), "r"(v) : "memory");
  return old;
}
__device__ unsigned atom_relaxed(unsigned* w, unsigned v) {
  unsigned old;
  asm volatile("atom.relaxed.gpu.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(w), "r"(v) : "memory");
  return old;
}
__device__ unsigned ld_acquire(unsigned* w) {
  unsigned v;
  asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(w) : "memory");
  return v;
}
__device__ unsigned atom_acq_rel_global(unsigned* w, unsigned v) {
  unsigned old;
  asm volatile("atom.global.acq_rel.gpu.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(w), "r"(v) : "memory");
  return old;
}
__device__ unsigned ld_acquire_global(unsigned* w) {
  unsigned v;
  asm volatile("ld.global.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(w) : "memory");
  return v;
}
__device__ unsigned ld_relaxed(unsigned* w) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(w) : "memory");
  return v;
}

__device__ void hand_barrier(int mode, unsigned* word, unsigned* abort_flag, unsigned blocks,
                             volatile unsigned* state) {
  __syncthreads();
  __shared__ unsigned out;
  if (threadIdx.x == 0) {
    unsigned id = mode == 5 ? state[0] : blockIdx.x;
    if (mode == 5) state[1] ^= 1;
    unsigned add = id == 0 ? 0x80000000u - (blocks - 1) : 1;
    unsigned old;
    if (mode == 4) {
      __threadfence();
      old = atom_relaxed(word, add);
    } else if (mode == 6) {
      old = atom_acq_rel_global(word, add);
    } else {
      old = atom_acq_rel(word, add);
    }
    unsigned spins = 0, aborted = 0;
    unsigned long long since = 0;
    while (true) {
      unsigned seen = mode == 6 ? ld_acquire_global(word)
                      : (mode == 1 || mode == 2 || mode == 5) ? ld_acquire(word)
                                                              : ld_relaxed(word);
      if ((seen ^ old) & 0x80000000u) break;
      if ((mode == 2 || mode == 5 || mode == 6) && (++spins & 31) == 0) {
        aborted |= ld_relaxed(abort_flag);
        unsigned long long t = now();
        since = since ? since : t;
      }
    }
    if (mode == 3 || mode == 4) ld_acquire(word);
    out = aborted + (since == 1);  // keeps the clock reads
  }
  __syncthreads();
  if (out) __trap();
}

__global__ void loop(int mode, int batches, int iters, unsigned* word, unsigned* abort_flag,
                     unsigned long long* out, unsigned* sm_of) {
  cg::grid_group grid = cg::this_grid();
  // Local memory: indexed with a value the compiler cannot know.
  volatile unsigned state[8];
  state[0] = blockIdx.x;
  state[1 + (iters & 1)] = 0;
  if (threadIdx.x == 0) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    sm_of[blockIdx.x] = sm;
  }
  for (int b = 0; b < batches; b++) {
    grid.sync();
    unsigned long long t0 = now();
    for (int i = 0; i < iters; i++) {
      if (mode == 0) grid.sync();
      else hand_barrier(mode, word, abort_flag, gridDim.x, state);
    }
    unsigned long long t1 = now();
    if (blockIdx.x == 0 && threadIdx.x == 0) out[b] = t1 - t0;
  }
}

int main(int argc, char** argv) {
  if (argc != 6 && argc != 7) {
    fprintf(stderr, "usage: %s MODE BLOCKS THREADS BATCHES ITERS [SHARED_BYTES]\n", argv[0]);
    return 2;
  }
  int mode = atoi(argv[1]), blocks = atoi(argv[2]), threads = atoi(argv[3]);
  int batches = atoi(argv[4]), iters = atoi(argv[5]);
  int shared = argc == 7 ? atoi(argv[6]) : 0;
  int per_sm = 0, sms = 0;
  CHECK(cudaFuncSetAttribute(loop, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, loop, threads, shared));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (blocks > per_sm * sms) {
    fprintf(stderr, "%d blocks of %d threads do not fit (at most %d)\n", blocks, threads, per_sm * sms);
    return 1;
  }
  unsigned *word, *abort_flag;
  unsigned long long* out;
  unsigned* sm_of;
  CHECK(cudaMalloc(&sm_of, blocks * sizeof(unsigned)));
  CHECK(cudaMalloc(&word, 64));
  CHECK(cudaMalloc(&abort_flag, 64));
  CHECK(cudaMemset(word, 0, 64));
  CHECK(cudaMemset(abort_flag, 0, 64));
  CHECK(cudaMalloc(&out, batches * sizeof(unsigned long long)));
  void* params[] = {&mode, &batches, &iters, &word, &abort_flag, &out, &sm_of};
  CHECK(cudaLaunchCooperativeKernel((void*)loop, blocks, threads, params, shared, 0));
  CHECK(cudaDeviceSynchronize());
  unsigned* sm_host = (unsigned*)malloc(blocks * sizeof(unsigned));
  CHECK(cudaMemcpy(sm_host, sm_of, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
  int used = 0, most = 0;
  for (int s = 0; s < sms; s++) {
    int n = 0;
    for (int b = 0; b < blocks; b++) n += sm_host[b] == (unsigned)s;
    used += n > 0;
    most = n > most ? n : most;
  }
  fprintf(stderr, "mode %d, %d blocks (at most %d an SM): on %d SMs, at most %d on one\n", mode, blocks, per_sm, used, most);
  unsigned long long* host = (unsigned long long*)malloc(batches * sizeof(unsigned long long));
  CHECK(cudaMemcpy(host, out, batches * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  for (int b = 0; b < batches; b++)
    printf("%d,%d,%d,%.3f\n", mode, blocks, b, (double)host[b] / iters);
  return 0;
}
