// What a load after a strided scatter waits for (issue 16: an empty typed
// put costs 1.2 us behind a column's 4096 scattered stores). One block of
// 256 threads repeats: scatter 4096 floats (a contiguous source into
// column 1 of a 4096 x 4096 matrix, 16 stores in flight a thread, lanes
// on consecutive rows, as dcuda's typed walk), then one of:
//   0 nothing                       (the hand scatter's stream)
//   1 __syncthreads
//   2 one global load whose value the next scatter's addresses depend on
//   3 as 2, then __syncthreads      (a put's window lookup and barrier)
//   4 one shared-memory load the addresses depend on, then __syncthreads
//   5 three dependent global loads, then __syncthreads
//   6 as 3, the word read with ld.relaxed.gpu (L1 bypassed)
// The destination is this GPU's memory, then (with two GPUs) the peer's
// over NVLink. Time per transfer by %globaltimer over REPS transfers,
// median of 11 launches.
//   nvcc -O3 -arch=sm_90 -o scatter_then_load scatter_then_load.cu
//   ./scatter_then_load   -> target,variant,us_per_transfer
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

constexpr int N = 4096, COL = 1, THREADS = 256, K = N / THREADS, REPS = 200;

__device__ __forceinline__ uint64_t now() {
    uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}
// An add the compiler cannot see through: the next addresses depend on `v`.
__device__ __forceinline__ float *depend(float *p, uint64_t v) {
    float *q; asm volatile("add.u64 %0, %1, %2;" : "=l"(q) : "l"(p), "l"(v)); return q;
}
__device__ __forceinline__ uint64_t ld_plain(const uint64_t *p) {
    uint64_t v; asm volatile("ld.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v;
}
__device__ __forceinline__ uint64_t ld_relaxed(const uint64_t *p) {
    uint64_t v; asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v;
}
__device__ __forceinline__ uint64_t ld_shared(const uint64_t *p) {
    uint64_t v; asm volatile("ld.shared.u64 %0, [%1];" : "=l"(v) : "r"((unsigned)__cvta_generic_to_shared(p)) : "memory"); return v;
}

// `zeros` holds 0 at [0], and [1] = 8 (bytes to the next word) for the chain.
__global__ void run(const float *src, float *dst, const uint64_t *zeros, int variant, uint64_t *out) {
    __shared__ uint64_t szero;
    if (threadIdx.x == 0) szero = 0;
    __syncthreads();
    float *d = dst;
    uint64_t t0 = now();
    for (int r = 0; r < REPS; r++) {
        float v[K];
#pragma unroll
        for (int k = 0; k < K; k++) v[k] = src[threadIdx.x + k * THREADS];
#pragma unroll
        for (int k = 0; k < K; k++) d[(size_t)(threadIdx.x + k * THREADS) * N + COL] = v[k];
        switch (variant) {
        case 1: __syncthreads(); break;
        case 2: d = depend(d, ld_plain(zeros)); break;
        case 3: d = depend(d, ld_plain(zeros)); __syncthreads(); break;
        case 4: d = depend(d, ld_shared(&szero)); __syncthreads(); break;
        case 5: {
            uint64_t a = ld_plain(zeros + 1);                    // 8
            uint64_t b = ld_plain((const uint64_t *)((const char *)zeros + a));  // zeros[1] = 8
            uint64_t c = ld_plain((const uint64_t *)((const char *)zeros + b - 8)); // zeros[0] = 0
            d = depend(d, c);
            __syncthreads();
            break;
        }
        case 6: d = depend(d, ld_relaxed(zeros)); __syncthreads(); break;
        default: break;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) *out = now() - t0;
}

int main() {
    int gpus = 0;
    CHECK(cudaGetDeviceCount(&gpus));
    printf("target,variant,us_per_transfer\n");
    for (int target = 0; target < (gpus > 1 ? 2 : 1); target++) {
        CHECK(cudaSetDevice(target));
        float *dst;
        CHECK(cudaMalloc(&dst, (size_t)N * N * sizeof(float)));
        CHECK(cudaSetDevice(0));
        if (target == 1) {
            cudaError_t e = cudaDeviceEnablePeerAccess(1, 0);
            if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CHECK(e);
        }
        float *src;
        uint64_t *zeros, *out;
        CHECK(cudaMalloc(&src, N * sizeof(float)));
        CHECK(cudaMalloc(&zeros, 2 * sizeof(uint64_t)));
        CHECK(cudaMalloc(&out, sizeof(uint64_t)));
        uint64_t z[2] = {0, 8};
        CHECK(cudaMemcpy(zeros, z, sizeof(z), cudaMemcpyHostToDevice));
        CHECK(cudaMemset(src, 0, N * sizeof(float)));
        for (int variant = 0; variant <= 6; variant++) {
            std::vector<double> us;
            for (int l = 0; l < 11; l++) {
                run<<<1, THREADS>>>(src, dst, zeros, variant, out);
                CHECK(cudaDeviceSynchronize());
                uint64_t ns;
                CHECK(cudaMemcpy(&ns, out, sizeof(ns), cudaMemcpyDeviceToHost));
                us.push_back(ns / 1e3 / REPS);
            }
            std::sort(us.begin(), us.end());
            printf("%s,%d,%.3f\n", target ? "peer" : "same", variant, us[us.size() / 2]);
        }
        CHECK(cudaFree(src)); CHECK(cudaFree(zeros)); CHECK(cudaFree(out));
        CHECK(cudaSetDevice(target)); CHECK(cudaFree(dst)); CHECK(cudaSetDevice(0));
    }
    return 0;
}
