// What a taken branch over cold code costs a hot loop, as dcuda's inlined
// runtime paths have them: one thread runs ITERS iterations, each testing
// JUMPS flags that are all zero at run time and skipping, for each, a cold
// block of BLOCK instructions. Cycles per iteration; the code the loop
// spans grows with JUMPS * BLOCK.
//   far_jumps [ITERS]
// prints: jumps,cold_instructions_each,span_kib,cycles_per_iteration
#include <cstdio>
#include <cstdlib>

template <int N>
__device__ __forceinline__ void cold(float& x) {
  // N dependent FMAs the compiler cannot fold (x is a run-time value).
#pragma unroll
  for (int i = 0; i < N; i++) x = fmaf(x, 1.0001f, 0.5f);
}

template <int JUMPS, int BLOCK>
__global__ void hot(const int* flags, int iters, float* sink, long long* out) {
  int f[JUMPS];
#pragma unroll
  for (int j = 0; j < JUMPS; j++) f[j] = flags[j];
  float x = sink[0];
  long long t0 = clock64();
  for (int it = 0; it < iters; it++) {
#pragma unroll
    for (int j = 0; j < JUMPS; j++) {
      if (f[j]) cold<BLOCK>(x);
      x += 1.0f;
    }
  }
  long long t1 = clock64();
  sink[1] = x;
  out[0] = (t1 - t0) / iters;
}

template <int JUMPS, int BLOCK>
void run(int* flags, int iters, float* sink, long long* out) {
  hot<JUMPS, BLOCK><<<1, 1>>>(flags, iters, sink, out);
  long long cycles;
  if (cudaMemcpy(&cycles, out, sizeof cycles, cudaMemcpyDeviceToHost) != cudaSuccess) {
    fprintf(stderr, "CUDA error\n");
    exit(1);
  }
  double kib = JUMPS * (BLOCK + 4) * 16.0 / 1024.0;
  printf("%d,%d,%.1f,%lld\n", JUMPS, BLOCK, kib, cycles);
}

int main(int argc, char** argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 2000;
  int* flags;
  float* sink;
  long long* out;
  cudaMalloc(&flags, 256 * sizeof(int));
  cudaMemset(flags, 0, 256 * sizeof(int));
  cudaMalloc(&sink, 2 * sizeof(float));
  cudaMemset(sink, 0, 2 * sizeof(float));
  cudaMalloc(&out, sizeof(long long));
  printf("jumps,cold_instructions_each,span_kib,cycles_per_iteration\n");
  run<32, 0>(flags, iters, sink, out);
  run<32, 64>(flags, iters, sink, out);
  run<32, 256>(flags, iters, sink, out);
  run<32, 1024>(flags, iters, sink, out);
  run<64, 1024>(flags, iters, sink, out);
  run<8, 1024>(flags, iters, sink, out);
  run<8, 4096>(flags, iters, sink, out);
  return 0;
}
