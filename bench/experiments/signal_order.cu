// How a notified put's payload is ordered before its signal between two
// GPUs over NVLink, and what each way costs: a ping-pong of one block on
// each GPU (one process, peer access), half a round trip on the device
// clock, median of batches. Variants of the signalling side:
//   0 flag only, st.relaxed.sys (the raw flag)
//   1 flag only, red.release.sys.add (dcuda's notification)
//   2 4-byte st, red.release.sys.add (dcuda's small notified put)
//   3 4-byte st, fence.acq_rel.sys, red.relaxed.sys.add
//   4 4-byte st, fence.sc.sys, red.relaxed.sys.add
//   5 4-byte st, st.release.sys of the round
//   6 4-byte st, fence.sc.sys, st.relaxed.sys of the round
//   7 4-byte st.relaxed.sys, red.release.sys.add
// The waiting side polls its counter with ld.acquire.sys (thread 0); with
// more than one thread a barrier follows the poll and precedes the signal.
//   nvcc -O3 -arch=sm_90 -o signal_order signal_order.cu && ./signal_order
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
constexpr int BATCHES = 21, ITERS = 200;
__device__ __forceinline__ uint64_t now() { uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__device__ __forceinline__ unsigned ld_acq(unsigned *p) { unsigned v; asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v; }
template <int V>
__device__ __forceinline__ void signal(unsigned *flag, unsigned *data, unsigned r) {
    if (V == 0) { asm volatile("st.relaxed.sys.global.u32 [%0], %1;" :: "l"(flag), "r"(r) : "memory"); return; }
    if (V == 1) { asm volatile("red.release.sys.global.add.u32 [%0], 1;" :: "l"(flag) : "memory"); return; }
    if (V == 7) asm volatile("st.relaxed.sys.global.u32 [%0], %1;" :: "l"(data), "r"(r) : "memory");
    else asm volatile("st.global.u32 [%0], %1;" :: "l"(data), "r"(r) : "memory");
    if (V == 2 || V == 7) asm volatile("red.release.sys.global.add.u32 [%0], 1;" :: "l"(flag) : "memory");
    if (V == 3) asm volatile("fence.acq_rel.sys; red.relaxed.sys.global.add.u32 [%0], 1;" :: "l"(flag) : "memory");
    if (V == 4) asm volatile("fence.sc.sys; red.relaxed.sys.global.add.u32 [%0], 1;" :: "l"(flag) : "memory");
    if (V == 5) asm volatile("st.release.sys.global.u32 [%0], %1;" :: "l"(flag), "r"(r) : "memory");
    if (V == 6) asm volatile("fence.sc.sys; st.relaxed.sys.global.u32 [%0], %1;" :: "l"(flag), "r"(r) : "memory");
}
template <int V>
__global__ void pingpong(int me, unsigned *mine, unsigned *theirs, unsigned *their_data, uint64_t *out) {
    bool lead = threadIdx.x == 0;
    unsigned r = 0;
    for (int b = -1; b < BATCHES; b++) {
        uint64_t t0 = now();
        for (int i = 0; i < ITERS; i++) {
            r++;
            if (me == 1) { if (lead) while (ld_acq(mine) < r) {} if (blockDim.x > 1) __syncthreads(); }
            if (blockDim.x > 1) __syncthreads();
            if (lead) signal<V>(theirs, their_data, r);
            if (me == 0) { if (lead) while (ld_acq(mine) < r) {} if (blockDim.x > 1) __syncthreads(); }
        }
        if (b >= 0 && lead) out[b] = now() - t0;
    }
}
template <int V>
double run(unsigned *c0, unsigned *c1, unsigned *d0, unsigned *d1, uint64_t *o0, uint64_t *o1, int threads) {
    CHECK(cudaSetDevice(0)); CHECK(cudaMemset(c0, 0, 4));
    CHECK(cudaSetDevice(1)); CHECK(cudaMemset(c1, 0, 4));
    CHECK(cudaSetDevice(0)); pingpong<V><<<1, threads>>>(0, c0, c1, d1, o0);
    CHECK(cudaSetDevice(1)); pingpong<V><<<1, threads>>>(1, c1, c0, d0, o1);
    CHECK(cudaDeviceSynchronize()); CHECK(cudaSetDevice(0)); CHECK(cudaDeviceSynchronize());
    std::vector<uint64_t> ns(BATCHES);
    CHECK(cudaMemcpy(ns.data(), o0, BATCHES * 8, cudaMemcpyDeviceToHost));
    std::sort(ns.begin(), ns.end());
    return ns[BATCHES / 2] / 1e3 / ITERS / 2.0;
}
int main() {
    int n = 0; CHECK(cudaGetDeviceCount(&n));
    if (n < 2) { fprintf(stderr, "needs two GPUs\n"); return 1; }
    unsigned *c0, *c1, *d0, *d1; uint64_t *o0, *o1;
    CHECK(cudaSetDevice(0)); CHECK(cudaDeviceEnablePeerAccess(1, 0));
    CHECK(cudaMalloc(&c0, 256)); CHECK(cudaMalloc(&d0, 256)); CHECK(cudaMalloc(&o0, BATCHES * 8));
    CHECK(cudaSetDevice(1)); CHECK(cudaDeviceEnablePeerAccess(0, 0));
    CHECK(cudaMalloc(&c1, 256)); CHECK(cudaMalloc(&d1, 256)); CHECK(cudaMalloc(&o1, BATCHES * 8));
    const char *names[] = {"flag st.relaxed.sys", "flag red.release.sys", "st + red.release.sys",
        "st + fence.acq_rel.sys + red.relaxed.sys", "st + fence.sc.sys + red.relaxed.sys",
        "st + st.release.sys", "st + fence.sc.sys + st.relaxed.sys", "st.relaxed.sys + red.release.sys"};
    printf("variant,threads,half_rtt_us\n");
    for (int rep = 0; rep < 2; rep++)
    for (int threads : {1, 128}) {
        double t[8] = {run<0>(c0, c1, d0, d1, o0, o1, threads), run<1>(c0, c1, d0, d1, o0, o1, threads),
            run<2>(c0, c1, d0, d1, o0, o1, threads), run<3>(c0, c1, d0, d1, o0, o1, threads),
            run<4>(c0, c1, d0, d1, o0, o1, threads), run<5>(c0, c1, d0, d1, o0, o1, threads),
            run<6>(c0, c1, d0, d1, o0, o1, threads), run<7>(c0, c1, d0, d1, o0, o1, threads)};
        for (int v = 0; v < 8; v++) printf("%s,%d,%.3f\n", names[v], threads, t[v]);
    }
    return 0;
}
