// What one traced span costs on the device, to find where tracing's time goes:
// cycles per %globaltimer read, per %clock64 read, and per span write (four
// 8-byte stores and a count). nvcc -O2 -arch=sm_90 trace_costs.cu && ./a.out
#include <cstdio>
__global__ void globaltimer_reads(unsigned long long *out, int n) {
  unsigned long long t0 = clock64(), s = 0;
  for (int i = 0; i < n; i++) { unsigned long long g; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g)); s += g; }
  unsigned long long t1 = clock64();
  if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = s; }
}
__global__ void clock_reads(unsigned long long *out, int n) {
  unsigned long long t0 = clock64(), s = 0;
  for (int i = 0; i < n; i++) { unsigned long long g; asm volatile("mov.u64 %0, %%clock64;" : "=l"(g)); s += g; }
  unsigned long long t1 = clock64();
  if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = s; }
}
__global__ void stores(unsigned long long *out, unsigned long long *buf, int n) {
  unsigned long long t0 = clock64();
  for (int i = 0; i < n; i++) { volatile unsigned long long *p = buf + 4 * (i % 4096); p[0] = i; p[1] = i; p[2] = i; p[3] = i; buf[4*4096 + blockIdx.x] = i; }
  unsigned long long t1 = clock64();
  if (threadIdx.x == 0) { out[0] = t1 - t0; }
}
int main() {
  unsigned long long *d, *b, h[2]; cudaMalloc(&d, 16); cudaMalloc(&b, 8 * 4 * 4096 * 2);
  int n = 10000;
  for (int blocks : {1, 264}) {
    globaltimer_reads<<<blocks, 32>>>(d, n); cudaMemcpy(h, d, 16, cudaMemcpyDeviceToHost);
    printf("blocks %d: globaltimer read %.1f cycles\n", blocks, (double)h[0] / n);
    clock_reads<<<blocks, 32>>>(d, n); cudaMemcpy(h, d, 16, cudaMemcpyDeviceToHost);
    printf("blocks %d: clock64 read %.1f cycles\n", blocks, (double)h[0] / n);
    stores<<<blocks, 1>>>(d, b, n); cudaMemcpy(h, d, 16, cudaMemcpyDeviceToHost);
    printf("blocks %d: span write (4x8B + count) %.1f cycles\n", blocks, (double)h[0] / n);
  }
  return 0;
}
