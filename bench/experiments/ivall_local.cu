// Does an acquire load's L1 invalidation (CCTL.IVALL in SASS) also drop
// local memory from L1? One thread polls a global word (relaxed or
// acquire) and then follows a chain of CHAIN dependent loads through a
// 64-word array in local, global or shared memory; cycles per iteration.
//   ivall_local [ITERS]
// prints: array,poll,cycles_per_iteration
#include <cstdio>
#include <cstdlib>

#define CHAIN 4

__device__ unsigned ld_relaxed(const unsigned* w) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(w) : "memory");
  return v;
}
__device__ unsigned ld_acquire(const unsigned* w) {
  unsigned v;
  asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(w) : "memory");
  return v;
}

// space: 0 local, 1 global, 2 shared; acquire: 0 relaxed poll, 1 acquire.
__global__ void chase(int space, int acquire, const unsigned* flag, unsigned* global_chain,
                      int iters, unsigned long long* out) {
  // Plain (not volatile) accesses: volatile ones bypass L1 altogether.
  unsigned local_chain[64];
  __shared__ unsigned shared_chain[64];
  for (int i = 0; i < 64; i++) {
    unsigned next = (i * 7 + 1 + (unsigned)iters * 64) & 63;  // not a constant to the compiler
    local_chain[i] = next;
    shared_chain[i] = next;
    global_chain[i] = next;
  }
  unsigned idx = 0;
  long long t0 = clock64();
  for (int it = 0; it < iters; it++) {
    unsigned v = acquire ? ld_acquire(flag) : ld_relaxed(flag);
    idx = (idx + v) & 63;
    // One loop per space, so that each load is of its own space (LDL,
    // LDG, LDS), not a generic one.
    if (space == 0)
      for (int c = 0; c < CHAIN; c++) idx = local_chain[idx];
    else if (space == 1)
      for (int c = 0; c < CHAIN; c++) idx = global_chain[idx];
    else
      for (int c = 0; c < CHAIN; c++) idx = shared_chain[idx];
  }
  long long t1 = clock64();
  out[0] = (t1 - t0) / iters;
  out[1] = idx;
}

int main(int argc, char** argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 10000;
  unsigned *flag, *global_chain;
  unsigned long long* out;
  cudaMalloc(&flag, 64);
  cudaMemset(flag, 0, 64);
  cudaMalloc(&global_chain, 64 * sizeof(unsigned));
  cudaMalloc(&out, 2 * sizeof(unsigned long long));
  const char* spaces[] = {"local", "global", "shared"};
  printf("array,poll,cycles_per_iteration\n");
  for (int space = 0; space < 3; space++)
    for (int acquire = 0; acquire < 2; acquire++) {
      chase<<<1, 1>>>(space, acquire, flag, global_chain, iters, out);
      unsigned long long host[2];
      if (cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) {
        fprintf(stderr, "CUDA error\n");
        return 1;
      }
      printf("%s,%s,%llu\n", spaces[space], acquire ? "acquire" : "relaxed", host[0]);
    }
  return 0;
}
