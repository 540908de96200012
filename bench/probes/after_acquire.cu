// What an acquire load costs the loads after it: on sm_70+ `ld.acquire`
// (and `fence.acq_rel`) is followed by CCTL.IVALL, which empties the L1
// cache. This times a flag load followed by one dependent load from
// global, local or shared memory, with the flag loaded by an acquire and
// by a relaxed load, in cycles per iteration of a steady loop.
// nvcc -O2 -arch=sm_90 after_acquire.cu && ./a.out
#include <cstdio>
__device__ __forceinline__ unsigned flag_load(const unsigned *p, bool acquire) {
  unsigned v;
  if (acquire) asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  else asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
// A pointer chase: each iteration loads the flag (always 0), then one
// word whose index depends on the flag and on the previous word, so the
// loop time per iteration is the flag load plus one dependent load.
// kind 0: global, 1: local, 2: shared (through a generic pointer, as the
// runtime's context copy is read), 3: shared (ld.shared), 4: no load.
__global__ void probe(const unsigned *flag, unsigned *global, unsigned long long *out, int n, int kind, bool acquire) {
  __shared__ unsigned sh[64];
  volatile unsigned loc[64];
  for (int i = 0; i < 64; i++) { loc[i] = (i + 1) & 63; sh[i] = (i + 1) & 63; global[i] = (i + 1) & 63; }
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned next = 0;
  unsigned long long t0 = clock64();
  for (int i = 0; i < n; i++) {
    unsigned idx = next + flag_load(flag, acquire);
    if (kind == 0) asm volatile("ld.global.u32 %0, [%1];" : "=r"(next) : "l"(global + idx) : "memory");
    else if (kind == 1) next = loc[idx];
    else if (kind == 2) asm volatile("ld.u32 %0, [%1];" : "=r"(next) : "l"(sh + idx) : "memory");
    else if (kind == 3) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(next) : "r"((unsigned)__cvta_generic_to_shared(sh + idx)) : "memory");
    else next = (idx + 1) & 63;
  }
  out[0] = clock64() - t0;
  out[1] = next;
}
int main() {
  unsigned *flag, *global; unsigned long long *d, h[2];
  cudaMalloc(&flag, 4); cudaMemset(flag, 0, 4); cudaMalloc(&global, 256); cudaMalloc(&d, 16);
  const char *kinds[] = {"global", "local", "shared (generic ld)", "shared (ld.shared)", "none"};
  int n = 100000;
  for (int kind = 0; kind < 5; kind++)
    for (int acquire = 0; acquire < 2; acquire++) {
      probe<<<1, 32>>>(flag, global, d, n, kind, acquire);
      cudaMemcpy(h, d, 16, cudaMemcpyDeviceToHost);
      printf("flag load (%-7s) + dependent %-20s load: %6.1f cycles\n", acquire ? "acquire" : "relaxed", kinds[kind], (double)h[0] / n);
    }
  return 0;
}
