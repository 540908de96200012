// What the raw CUDA baselines share: error checks, the device clock the
// benchmarks time with, and a block sum of doubles.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__device__ inline unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The sum of every thread's v; part holds 33 doubles of shared memory.
__device__ inline double block_sum(double v, double* part) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  int warps = blockDim.x / 32;
  if ((threadIdx.x & 31) == 0) part[threadIdx.x / 32] = v;
  __syncthreads();
  double w = threadIdx.x < warps ? part[threadIdx.x] : 0.0;
  if (threadIdx.x < 32)
    for (int o = 16; o > 0; o >>= 1) w += __shfl_xor_sync(0xffffffffu, w, o);
  if (threadIdx.x == 0) part[32] = w;
  __syncthreads();
  double total = part[32];
  __syncthreads();  // part is reused by the next call
  return total;
}
