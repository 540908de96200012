// Can a block copy a strided column faster than its load/store unit allows
// (issue 16)? The column 1 of a 4096 x 4096 f32 matrix into the same
// column of another matrix, on the same GPU or on the peer over NVLink,
// then a system fence and a flag (what a notified put pays). One block of
// 256 threads, as bench_typed's ranks and NVSHMEM's baseline.
//   0: the floor of strided_column.cu (variant 8): rows by lane, 16 loads
//      in flight a thread, then 16 stores;
//   1: the loads by the tensor memory accelerator: 16 boxes of 256 rows x
//      4 floats (16 bytes, TMA's least) into shared memory, one mbarrier a
//      box; each thread stores its row of each box as the box arrives;
//   2: as 1 with boxes of 256 rows x 8 floats (a 32-byte sector a row).
// Each timed with %globaltimer over 20 repetitions in one launch, median
// and p90 of 21 launches.
//   nvcc -O3 -arch=sm_90 -o column_tma column_tma.cu
//   ./column_tma        (two GPUs: same GPU, then peer)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

constexpr int N = 4096, COL = 1, T = 256, BOXES = N / T;

__device__ __forceinline__ uint64_t now() {
    uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}
__device__ __forceinline__ uint32_t smem(const void *p) {
    return (uint32_t)__cvta_generic_to_shared(p);
}

// Variant 0: loads then stores, rows by lane.
__device__ void copy_lsu(const float *src, float *dst) {
    int t = threadIdx.x;
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
}

// Variants 1 and 2: W floats a row by TMA, box b into boxes[b].
template <int W>
__device__ void copy_tma(const CUtensorMap *map, float *dst, float *boxes, uint64_t *bars, int rep) {
    int t = threadIdx.x;
    const uint32_t bytes = T * W * sizeof(float);
    if (t == 0) {
        for (int b = 0; b < BOXES; b++) {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                         :: "r"(smem(&bars[b])), "r"(bytes) : "memory");
            asm volatile(
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                " [%0], [%1, {%2, %3}], [%4];"
                :: "r"(smem(boxes + b * T * W)), "l"((uint64_t)map), "r"(0), "r"(b * T),
                   "r"(smem(&bars[b])) : "memory");
        }
    }
    const uint32_t parity = rep & 1;
    for (int b = 0; b < BOXES; b++) {
        uint32_t done = 0;
        while (!done) {
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;"
                         " selp.u32 %0, 1, 0, p; }"
                         : "=r"(done) : "r"(smem(&bars[b])), "r"(parity) : "memory");
        }
        float v = boxes[b * T * W + t * W + COL];
        float *p = dst + (size_t)(b * T + t) * N + COL;
        asm volatile("st.global.b32 [%0], %1;" :: "l"(p), "f"(v) : "memory");
    }
}

template <int V>
__global__ void bench(const __grid_constant__ CUtensorMap map, const float *src, float *dst,
                      unsigned *flag, int reps, uint64_t *out) {
    extern __shared__ __align__(128) float boxes[];
    __shared__ __align__(8) uint64_t bars[BOXES];
    if (V > 0 && threadIdx.x == 0) {
        for (int b = 0; b < BOXES; b++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(&bars[b])));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("prefetch.tensormap [%0];" :: "l"((uint64_t)&map) : "memory");
    }
    __syncthreads();
    uint64_t t0 = now();
    for (int r = 0; r < reps; r++) {
        if (V == 0) copy_lsu(src, dst);
        else if (V == 1) copy_tma<4>(&map, dst, boxes, bars, r);
        else copy_tma<8>(&map, dst, boxes, bars, r);
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

typedef void (*Kernel)(const CUtensorMap, const float *, float *, unsigned *, int, uint64_t *);
static const Kernel kernels[3] = {bench<0>, bench<1>, bench<2>};
static const int widths[3] = {0, 4, 8};
static const char *names[3] = {"loads by lane, 16 in flight (floor)", "TMA boxes of 256 x 4",
                               "TMA boxes of 256 x 8"};

// The source matrix as a 2D tensor of floats, boxes of 256 rows x `w`.
static int tensor_map(CUtensorMap *map, float *src, int w) {
    PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
    cudaDriverEntryPointQueryResult q;
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault, &q));
    if (!encode || q != cudaDriverEntryPointSuccess) { fprintf(stderr, "no cuTensorMapEncodeTiled\n"); return 1; }
    cuuint64_t dims[2] = {N, N}, strides[1] = {(cuuint64_t)N * sizeof(float)};
    cuuint32_t box[2] = {(cuuint32_t)w, T}, elem[2] = {1, 1};
    CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, src, dims, strides, box, elem,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) { fprintf(stderr, "cuTensorMapEncodeTiled: %d\n", (int)r); return 1; }
    return 0;
}

// Runs variant `v` into `dst`; checks the column arrived; prints a row.
static int run(const char *where, int v, float *src, float *dst, unsigned *flag, uint64_t *out,
               std::vector<float> &host) {
    const int reps = 20, launches = 21;
    CUtensorMap map{};
    if (tensor_map(&map, src, widths[v] ? widths[v] : 4)) return 1;
    size_t shared = (size_t)BOXES * T * (widths[v] ? widths[v] : 1) * sizeof(float);
    CHECK(cudaFuncSetAttribute(kernels[v], cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    std::vector<double> us;
    for (int l = 0; l < launches; l++) {
        kernels[v]<<<1, T, shared>>>(map, src, dst, flag, reps, out);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        uint64_t ns;
        CHECK(cudaMemcpy(&ns, out, 8, cudaMemcpyDeviceToHost));
        us.push_back(ns / 1e3 / reps);
    }
    // The column must have arrived: row y holds y + 0.5 in column 1.
    for (int y = 0; y < N; y += 511) {
        float got;
        CHECK(cudaMemcpy(&got, dst + (size_t)y * N + COL, 4, cudaMemcpyDefault));
        if (got != host[(size_t)y * N + COL]) {
            fprintf(stderr, "%s variant %d: row %d holds %g, not %g\n", where, v, y, got, host[(size_t)y * N + COL]);
            return 1;
        }
    }
    std::sort(us.begin(), us.end());
    printf("%s,%s,%.3f,%.3f\n", where, names[v], us[us.size() / 2], us[us.size() * 9 / 10]);
    return 0;
}

int main() {
    int gpus = 0;
    CHECK(cudaGetDeviceCount(&gpus));
    size_t bytes = (size_t)N * N * sizeof(float);
    std::vector<float> host((size_t)N * N, 0.0f);
    for (int y = 0; y < N; y++) host[(size_t)y * N + COL] = y + 0.5f;
    float *src, *dst_here, *dst_peer = nullptr;
    unsigned *flag;
    uint64_t *out;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&src, bytes));
    CHECK(cudaMalloc(&dst_here, bytes));
    CHECK(cudaMalloc(&flag, 4));
    CHECK(cudaMalloc(&out, 8));
    CHECK(cudaMemcpy(src, host.data(), bytes, cudaMemcpyHostToDevice));
    if (gpus > 1) {
        CHECK(cudaDeviceEnablePeerAccess(1, 0));
        CHECK(cudaSetDevice(1));
        CHECK(cudaMalloc(&dst_peer, bytes));
        CHECK(cudaSetDevice(0));
    }
    printf("where,variant,median_us,p90_us\n");
    for (int round = 0; round < 2; round++)
        for (int v = 0; v < 3; v++) {
            CHECK(cudaMemset(dst_here, 0, bytes));
            if (run("same GPU", v, src, dst_here, flag, out, host)) return 1;
            if (dst_peer) {
                CHECK(cudaSetDevice(1));
                CHECK(cudaMemset(dst_peer, 0, bytes));
                CHECK(cudaSetDevice(0));
                if (run("peer", v, src, dst_peer, flag, out, host)) return 1;
            }
        }
    return 0;
}
