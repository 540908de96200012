// Column copy within one GPU by one block: LSU loads vs bulk (TMA) copies
// of each element's 16-byte chunk into shared memory, then scattered stores.
#include <cstdio>
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime.h>
#define N 4096
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__device__ __forceinline__ uint64_t now() { uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }

template <int PER>
__global__ void lsu(const float *src, float *dst, int col, int reps, unsigned long long *ns) {
  int t = threadIdx.x, T = blockDim.x;
  __syncthreads();
  uint64_t t0 = now();
  for (int r = 0; r < reps; r++) {
    float v[PER];
#pragma unroll
    for (int i = 0; i < PER; i++) { int row = t + i * T; v[i] = row < N ? __ldcg(&src[(size_t)row * N + col]) : 0.f; }
#pragma unroll
    for (int i = 0; i < PER; i++) { int row = t + i * T; if (row < N) dst[(size_t)row * N + col] = v[i] + r; }
    __syncthreads();
  }
  if (t == 0) *ns = now() - t0;
}

__device__ __forceinline__ void mbar_init(uint64_t *bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_expect(uint64_t *bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(bytes));
}
__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned phase) {
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}" :: "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(phase));
}
__device__ __forceinline__ void bulk16(void *smem, const void *g, uint64_t *bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 16, [%2];"
               :: "r"((unsigned)__cvta_generic_to_shared(smem)), "l"(g), "r"((unsigned)__cvta_generic_to_shared(bar)) : "memory");
}

template <int PER>
__global__ void bulk(const float *src, float *dst, int col, int reps, unsigned long long *ns) {
  extern __shared__ __align__(16) float4 chunks[];
  __shared__ __align__(8) uint64_t bar;
  int t = threadIdx.x, T = blockDim.x;
  if (t == 0) mbar_init(&bar, 1);
  __syncthreads();
  int sub = col & 3, c0 = col & ~3;
  uint64_t t0 = now();
  for (int r = 0; r < reps; r++) {
    if (t == 0) mbar_expect(&bar, N * 16);
#pragma unroll
    for (int i = 0; i < PER; i++) { int row = t + i * T; if (row < N) bulk16(&chunks[row], &src[(size_t)row * N + c0], &bar); }
    mbar_wait(&bar, r & 1);
#pragma unroll
    for (int i = 0; i < PER; i++) { int row = t + i * T; if (row < N) dst[(size_t)row * N + col] = ((float *)&chunks[row])[sub] + r; }
    __syncthreads();
  }
  if (t == 0) *ns = now() - t0;
}

int main() {
  int ndev; cudaGetDeviceCount(&ndev);
  float *src, *dst; unsigned long long *ns, h;
  int peer = ndev > 1 ? 1 : 0;
  CHECK(cudaMalloc(&src, (size_t)N * N * 4));
  CHECK(cudaSetDevice(peer)); CHECK(cudaMalloc(&dst, (size_t)N * N * 4)); CHECK(cudaSetDevice(0));
  if (peer) CHECK(cudaDeviceEnablePeerAccess(1, 0));
  CHECK(cudaMalloc(&ns, 8));
  CHECK(cudaMemset(src, 0, (size_t)N * N * 4));
  int reps = 2000, col = 1029;
  CHECK(cudaFuncSetAttribute(bulk<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, N * 16));
  CHECK(cudaFuncSetAttribute(bulk<16>, cudaFuncAttributeMaxDynamicSharedMemorySize, N * 16));
  for (int round = 0; round < 3; round++) {
    lsu<4><<<1, 1024>>>(src, dst, col, reps, ns); CHECK(cudaMemcpy(&h, ns, 8, cudaMemcpyDeviceToHost));
    printf("dst on GPU %d, lsu 1024x4: %.3f us\n", peer, h / 1e3 / reps);
    lsu<16><<<1, 256>>>(src, dst, col, reps, ns); CHECK(cudaMemcpy(&h, ns, 8, cudaMemcpyDeviceToHost));
    printf("dst on GPU %d, lsu 256x16: %.3f us\n", peer, h / 1e3 / reps);
    bulk<4><<<1, 1024, N * 16>>>(src, dst, col, reps, ns); CHECK(cudaGetLastError()); CHECK(cudaMemcpy(&h, ns, 8, cudaMemcpyDeviceToHost));
    printf("dst on GPU %d, bulk 1024x4: %.3f us\n", peer, h / 1e3 / reps);
    bulk<16><<<1, 256, N * 16>>>(src, dst, col, reps, ns); CHECK(cudaMemcpy(&h, ns, 8, cudaMemcpyDeviceToHost));
    printf("dst on GPU %d, bulk 256x16: %.3f us\n", peer, h / 1e3 / reps);
  }
  // Correctness of the last bulk run: dst column = reps - 1.
  float got; CHECK(cudaMemcpy(&got, dst + (size_t)77 * N + col, 4, cudaMemcpyDefault));
  printf("check: %.0f (want %d)\n", got, reps - 1);
  return 0;
}
