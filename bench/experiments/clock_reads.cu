// What one read of each GPU clock costs a thread: a chain of N dependent
// reads (each result feeds the next iteration's branch), timed with
// clock64, one thread, one block. %globaltimer is what dcuda's trace spans
// read; %clock64 is the SM's cycle counter.
// nvcc -O2 -arch=sm_90 clock_reads.cu -o clock_reads && ./clock_reads
#include <cstdio>
#include <cstdint>

__device__ __forceinline__ uint64_t globaltimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void reads(int n, uint64_t *out) {
  uint64_t acc = 0;
  // Warm up.
  for (int i = 0; i < 64; i++) acc += globaltimer() + clock64();
  uint64_t t0 = clock64();
  for (int i = 0; i < n; i++) acc += globaltimer() & 1;
  uint64_t t1 = clock64();
  for (int i = 0; i < n; i++) acc += clock64() & 1;
  uint64_t t2 = clock64();
  for (int i = 0; i < n; i++) acc += (uint64_t)i & 1;
  uint64_t t3 = clock64();
  uint64_t g0 = globaltimer();
  uint64_t c0 = clock64();
  for (int i = 0; i < n; i++) acc += globaltimer() & 1;
  uint64_t g1 = globaltimer();
  uint64_t c1 = clock64();
  out[0] = t1 - t0;
  out[1] = t2 - t1;
  out[2] = t3 - t2;
  out[3] = g1 - g0;
  out[4] = c1 - c0;
  out[5] = acc;
}

int main() {
  const int n = 100000;
  uint64_t *d, h[6];
  cudaMalloc(&d, sizeof h);
  for (int rep = 0; rep < 3; rep++) {
    reads<<<1, 1>>>(n, d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("cycles per read: globaltimer %.1f, clock64 %.1f, empty loop %.1f; "
           "globaltimer loop %.3f ns/read by globaltimer (%.0f MHz SM clock)\n",
           (double)h[0] / n, (double)h[1] / n, (double)h[2] / n, (double)h[3] / n,
           (double)h[4] / h[3] * 1e3);
  }
  return 0;
}
