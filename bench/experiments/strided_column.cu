// How one block of 256 threads should copy a strided column (issue 16):
// the column 1 of a 4096 x 4096 f32 matrix into the same column of
// another matrix, on the same GPU or on the peer GPU over NVLink, then a
// system fence (what a notified put pays before its flag). Variants of
// the thread mapping, the loads in flight and the cache operator; each
// timed with %globaltimer over 20 repetitions inside one kernel, median
// of 21 launches.
//   nvcc -O3 -arch=sm_90 -o strided_column strided_column.cu
//   ./strided_column        (two GPUs: same GPU, then peer)
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__device__ __forceinline__ uint64_t now() {
    uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}
__device__ __forceinline__ float ld_cg(const float *p) {
    float v; asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p)); return v;
}
__device__ __forceinline__ float ld_nc(const float *p) {
    float v; asm volatile("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(v) : "l"(p)); return v;
}

constexpr int N = 4096, COL = 1;

// 0: lanes on consecutive rows, 4 in flight (dcuda's spread today).
// 1: lanes on consecutive rows, 16 in flight.
// 2: each thread its 16 consecutive rows, one after another (NVSHMEM iput).
// 3: each thread its 16 consecutive rows, 16 loads in flight.
// 4: as 0 with ld.global.cg (L1 bypassed).
// 5: as 1 with ld.global.cg.
// 6: as 1 with ld.global.nc.L1::no_allocate.
// 7: contiguous 16 KiB (reference): 4096 floats, float4 a thread.
// 8: as 1 through generic addresses (ld.b32/st.b32, as rustc emits them).
// 9: as 8 with ld.global.b32/st.global.b32 (the same volatile asm).
// 10: as 8 without volatile on the loads (the compiler may schedule them).
template <int V>
__device__ void copy(const float *__restrict__ src, float *__restrict__ dst) {
    int t = threadIdx.x, T = blockDim.x;
    if (V == 0 || V == 4) {
        for (int e = t; e < N; e += 4 * T) {
            float v[4];
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const float *p = src + (size_t)(e + k * T) * N + COL;
                v[k] = V == 4 ? ld_cg(p) : *p;
            }
#pragma unroll
            for (int k = 0; k < 4; k++) dst[(size_t)(e + k * T) * N + COL] = v[k];
        }
    } else if (V == 1 || V == 5 || V == 6) {
        float v[16];
#pragma unroll
        for (int k = 0; k < 16; k++) {
            const float *p = src + (size_t)(t + k * T) * N + COL;
            v[k] = V == 5 ? ld_cg(p) : V == 6 ? ld_nc(p) : *p;
        }
#pragma unroll
        for (int k = 0; k < 16; k++) dst[(size_t)(t + k * T) * N + COL] = v[k];
    } else if (V == 2) {
        const float *s = src + (size_t)(t * 16) * N + COL;
        float *d = dst + (size_t)(t * 16) * N + COL;
        for (int k = 0; k < 16; k++) {
            float v = *(volatile const float *)(s + (size_t)k * N);
            d[(size_t)k * N] = v;
        }
    } else if (V == 3) {
        float v[16];
#pragma unroll
        for (int k = 0; k < 16; k++) v[k] = src[(size_t)(t * 16 + k) * N + COL];
#pragma unroll
        for (int k = 0; k < 16; k++) dst[(size_t)(t * 16 + k) * N + COL] = v[k];
    } else if (V == 8) {
        float v[16];
#pragma unroll
        for (int k = 0; k < 16; k++) {
            const float *p = src + (size_t)(t + k * T) * N + COL;
            asm volatile("ld.b32 %0, [%1];" : "=f"(v[k]) : "l"(p));
        }
#pragma unroll
        for (int k = 0; k < 16; k++) {
            float *p = dst + (size_t)(t + k * T) * N + COL;
            asm volatile("st.b32 [%0], %1;" :: "l"(p), "f"(v[k]) : "memory");
        }
    } else if (V == 9) {
        float v[16];
#pragma unroll
        for (int k = 0; k < 16; k++) {
            const float *p = src + (size_t)(t + k * T) * N + COL;
            asm volatile("ld.global.b32 %0, [%1];" : "=f"(v[k]) : "l"(p));
        }
#pragma unroll
        for (int k = 0; k < 16; k++) {
            float *p = dst + (size_t)(t + k * T) * N + COL;
            asm volatile("st.global.b32 [%0], %1;" :: "l"(p), "f"(v[k]) : "memory");
        }
    } else if (V == 10) {
        float v[16];
#pragma unroll
        for (int k = 0; k < 16; k++) {
            const float *p = src + (size_t)(t + k * T) * N + COL;
            asm("ld.b32 %0, [%1];" : "=f"(v[k]) : "l"(p));
        }
#pragma unroll
        for (int k = 0; k < 16; k++) {
            float *p = dst + (size_t)(t + k * T) * N + COL;
            asm volatile("st.b32 [%0], %1;" :: "l"(p), "f"(v[k]) : "memory");
        }
    } else {
        const float4 *s = (const float4 *)src;
        float4 *d = (float4 *)dst;
        for (int i = t; i < N / 4; i += T) d[i] = s[i];
    }
}

template <int V>
__global__ void bench(const float *src, float *dst, unsigned *flag, int reps, uint64_t *out) {
    __syncthreads();
    uint64_t t0 = now();
    for (int r = 0; r < reps; r++) {
        copy<V>(src, dst);
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence_system();
            atomicAdd_system(flag, 1);
        }
        __syncthreads();
    }
    uint64_t t1 = now();
    if (threadIdx.x == 0) *out = t1 - t0;
}

typedef void (*Kernel)(const float *, float *, unsigned *, int, uint64_t *);
static const Kernel kernels[11] = {bench<0>, bench<1>, bench<2>, bench<3>, bench<4>, bench<5>,
                                   bench<6>, bench<7>, bench<8>, bench<9>, bench<10>};
static const char *names[11] = {
    "rows by lane, 4 in flight (dcuda)", "rows by lane, 16 in flight",
    "16 rows a thread, 1 in flight (iput)", "16 rows a thread, 16 in flight",
    "rows by lane, 4 in flight, ld.cg", "rows by lane, 16 in flight, ld.cg",
    "rows by lane, 16 in flight, ld.nc", "contiguous 16 KiB (reference)",
    "rows by lane, 16 in flight, generic",
    "rows by lane, 16 in flight, global asm", "rows by lane, 16 in flight, generic, loads not volatile"};

// The ping-pong of bench_typed without a runtime: block 0 on GPU `me`
// puts the column of its array `mine` into the peer's array `theirs`,
// fences, raises the peer's flag, waits for its own; the other answers.
// Half a round trip, the device clock, over `reps`.
template <int V>
__global__ void pingpong(const float *mine, float *theirs, volatile unsigned *my_flag,
                         unsigned *their_flag, int me, int reps, uint64_t *out) {
    uint64_t t0 = now();
    for (int r = 1; r <= reps; r++) {
        if (me == 1) {
            if (threadIdx.x == 0) while (*my_flag < (unsigned)r) {}
            __syncthreads();
        }
        copy<V>(mine, theirs);
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence_system();
            atomicAdd_system(their_flag, 1);
        }
        if (me == 0) {
            if (threadIdx.x == 0) while (*my_flag < (unsigned)r) {}
            __syncthreads();
        }
    }
    uint64_t t1 = now();
    if (threadIdx.x == 0) *out = (t1 - t0) / (2 * reps);
}

int main() {
    int gpus = 0;
    CHECK(cudaGetDeviceCount(&gpus));
    const int reps = 20, launches = 21;
    size_t bytes = (size_t)N * N * sizeof(float);
    float *src, *dst_here, *dst_peer = nullptr;
    unsigned *flag;
    uint64_t *out;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&src, bytes));
    CHECK(cudaMalloc(&dst_here, bytes));
    CHECK(cudaMalloc(&flag, 4));
    CHECK(cudaMalloc(&out, 8));
    CHECK(cudaMemset(src, 0, bytes));
    if (gpus > 1) {
        CHECK(cudaDeviceEnablePeerAccess(1, 0));
        CHECK(cudaSetDevice(1));
        CHECK(cudaMalloc(&dst_peer, bytes));
        CHECK(cudaMemset(dst_peer, 0, bytes));
        CHECK(cudaSetDevice(0));
    }
    printf("where,variant,median_us,p90_us\n");
    if (gpus > 1) {
        // bench_typed's shape of the exchange, between the two GPUs.
        float *b;
        unsigned *f0, *f1;
        uint64_t *out1;
        CHECK(cudaMalloc(&f0, 4));
        CHECK(cudaMemset(f0, 0, 4));
        CHECK(cudaSetDevice(1));
        CHECK(cudaDeviceEnablePeerAccess(0, 0));
        CHECK(cudaMalloc(&b, bytes));
        CHECK(cudaMemset(b, 0, bytes));
        CHECK(cudaMalloc(&f1, 4));
        CHECK(cudaMalloc(&out1, 8));
        CHECK(cudaSetDevice(0));
        const int pv[4] = {0, 1, 8, 7};
        const char *pn[4] = {"4 in flight", "16 in flight", "16 in flight, generic", "contiguous"};
        for (int i = 0; i < 4; i++) {
            std::vector<double> us;
            for (int l = 0; l < 11; l++) {
                CHECK(cudaMemset(f0, 0, 4));
                CHECK(cudaSetDevice(1));
                CHECK(cudaMemset(f1, 0, 4));
                CHECK(cudaDeviceSynchronize());
                void (*k)(const float *, float *, volatile unsigned *, unsigned *, int, int, uint64_t *) =
                    pv[i] == 0 ? pingpong<0> : pv[i] == 1 ? pingpong<1> : pv[i] == 8 ? pingpong<8> : pingpong<7>;
                k<<<1, 256>>>(b, src, f1, f0, 1, 400, out1);
                CHECK(cudaSetDevice(0));
                k<<<1, 256>>>(src, b, f0, f1, 0, 400, out);
                CHECK(cudaDeviceSynchronize());
                CHECK(cudaSetDevice(1));
                CHECK(cudaDeviceSynchronize());
                CHECK(cudaSetDevice(0));
                uint64_t ns;
                CHECK(cudaMemcpy(&ns, out, 8, cudaMemcpyDeviceToHost));
                if (l > 0) us.push_back(ns / 1e3);
            }
            std::sort(us.begin(), us.end());
            printf("ping-pong,%s,%.3f,%.3f\n", pn[i], us[us.size() / 2], us[us.size() * 9 / 10]);
        }
    }
    for (int where = 0; where < (gpus > 1 ? 2 : 1); where++) {
        float *dst = where ? dst_peer : dst_here;
        for (int v = 0; v < 11; v++) {
            std::vector<double> us;
            for (int l = 0; l < launches; l++) {
                kernels[v]<<<1, 256>>>(src, dst, flag, reps, out);
                CHECK(cudaDeviceSynchronize());
                uint64_t ns;
                CHECK(cudaMemcpy(&ns, out, 8, cudaMemcpyDeviceToHost));
                if (l > 0) us.push_back(ns / 1e3 / reps);
            }
            std::sort(us.begin(), us.end());
            printf("%s,%s,%.3f,%.3f\n", where ? "peer GPU" : "same GPU", names[v],
                   us[us.size() / 2], us[us.size() * 9 / 10]);
        }
    }
    return 0;
}
