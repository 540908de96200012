// Raw baselines of `bench_world` between two GPUs, built on the GPU machine
// with nvcc against the NVSHMEM installed there (scripts/gpu-multi.sh). Two
// processes, one GPU each, under mpirun; `bench_world --baseline FILE`
// reads what process 0 prints and puts it in its own CSV, table and plots:
//   1. latency (half round trip, device clock, one line per batch of
//      ITERS round trips): NVSHMEM put-with-signal + signal-wait ping-pong,
//      one thread at 4 B and a 128-thread block (`_block`) at 4 B to 64 KiB;
//      the raw NVLink flag (a store into the peer's memory through
//      `nvshmem_ptr`, polled there), one thread and a 128-thread block with
//      a barrier around each step;
//   2. NVSHMEM put bandwidth from PE 0 to PE 1 (`blocks` blocks of 512
//      threads, each nvshmemx_putmem_block of its slice `reps` times, then
//      nvshmem_quiet; device clock from the first block's start to the
//      last one's end, five trials);
//   3. cudaMemcpyPeer bandwidth from GPU 0 to GPU 1 (process 0 only).
// Prints CSV lines: group,measure,bytes,value (µs or GB/s).
#include <cstdint>
#include <vector>
#include "nvshmem_mpi.cuh"

constexpr int BATCHES = 40, ITERS = 100;

// Thread 0 waits for round `r`; the block follows it.
__device__ void wait_round(uint64_t *sig, uint64_t r) {
    if (threadIdx.x == 0) nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, r);
    if (blockDim.x > 1) __syncthreads();
}

// Ping-pong of `bytes` from `buf + 64 KiB` into the peer's `buf`.
__global__ void pingpong(char *buf, uint64_t *sig, size_t bytes, unsigned long long *out) {
    int me = nvshmem_my_pe(), peer = 1 - me;
    uint64_t r = 0;
    for (int b = -1; b < BATCHES; b++) {  // batch -1 warms up
        unsigned long long t0 = now();
        for (int i = 0; i < ITERS; i++) {
            r++;
            if (me == 1) wait_round(sig, r);
            if (blockDim.x == 1)
                nvshmem_putmem_signal_nbi(buf, buf + (64 << 10), bytes, sig, r, NVSHMEM_SIGNAL_SET, peer);
            else
                nvshmemx_putmem_signal_nbi_block(buf, buf + (64 << 10), bytes, sig, r, NVSHMEM_SIGNAL_SET, peer);
            if (me == 0) wait_round(sig, r);
        }
        if (b >= 0 && threadIdx.x == 0) out[b] = now() - t0;
    }
}

// The raw NVLink flag: the round number stored into the peer's `flag`
// (mapped through NVLink), polled on `mine`.
__global__ void raw_flag(volatile int *mine, volatile int *theirs, unsigned long long *out) {
    int me = nvshmem_my_pe(), r = 0;
    for (int b = -1; b < BATCHES; b++) {
        unsigned long long t0 = now();
        for (int i = 0; i < ITERS; i++) {
            r++;
            if (me == 1 && threadIdx.x == 0) while (*mine < r) {}
            if (blockDim.x > 1) __syncthreads();
            if (threadIdx.x == 0) *theirs = r;
            if (me == 0 && threadIdx.x == 0) while (*mine < r) {}
            if (blockDim.x > 1) __syncthreads();
        }
        if (b >= 0 && threadIdx.x == 0) out[b] = now() - t0;
    }
}

// Prints process 0's batches of one latency measure.
void print_batches(int rank, const char *measure, size_t bytes, unsigned long long *out) {
    std::vector<unsigned long long> ns(BATCHES);
    CHECK(cudaMemcpy(ns.data(), out, BATCHES * sizeof(ns[0]), cudaMemcpyDeviceToHost));
    if (rank != 0) return;
    for (auto v : ns) printf("latency,%s,%zu,%.4f\n", measure, bytes, v / 1e3 / ITERS / 2.0);
}

// Each block puts its slice `reps` times, completes its puts and stamps
// its first and last clock: bandwidth from the earliest start to the
// latest end, as dcuda's senders are timed.
__global__ void put_blocks(char *dst, const char *src, size_t per, int peer, int reps,
                           unsigned long long *stamps) {
    size_t off = (size_t)blockIdx.x * per;
    unsigned long long t0 = now();
    for (int r = 0; r < reps; r++) nvshmemx_putmem_block(dst + off, src + off, per, peer);
    nvshmem_quiet();
    __syncthreads();
    if (threadIdx.x == 0) {
        stamps[2 * blockIdx.x] = t0;
        stamps[2 * blockIdx.x + 1] = now();
    }
}

int main(int argc, char **argv) {
    int rank, size;
    init_nvshmem_over_mpi(&argc, &argv, &rank, &size);
    if (size != 2) { if (!rank) fprintf(stderr, "run with mpirun -np 2\n"); MPI_Abort(MPI_COMM_WORLD, 1); }

    // 1. Latency.
    char *buf = (char *)nvshmem_malloc(128 << 10);
    uint64_t *sig = (uint64_t *)nvshmem_malloc(sizeof(uint64_t));
    int *flag = (int *)nvshmem_malloc(sizeof(int));
    int *peer_flag = (int *)nvshmem_ptr(flag, 1 - rank);
    if (!peer_flag) { fprintf(stderr, "nvshmem_ptr: the peer GPU is not mapped\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
    unsigned long long *out;
    CHECK(cudaMalloc(&out, BATCHES * sizeof(*out)));
    struct { const char *measure; int threads; size_t bytes; } runs[] = {
        {"nvshmem put-with-signal (one thread)", 1, 4},
        {"nvshmem put-with-signal (128-thread block)", 128, 4},
        {"nvshmem put-with-signal (128-thread block)", 128, 1024},
        {"nvshmem put-with-signal (128-thread block)", 128, 8192},
        {"nvshmem put-with-signal (128-thread block)", 128, 65536},
    };
    for (auto &run : runs) {
        CHECK(cudaMemset(sig, 0, sizeof(uint64_t)));
        CHECK(cudaDeviceSynchronize());
        nvshmem_barrier_all();
        pingpong<<<1, run.threads>>>(buf, sig, run.bytes, out);
        CHECK(cudaDeviceSynchronize());
        print_batches(rank, run.measure, run.bytes, out);
    }
    for (int threads : {1, 128}) {
        CHECK(cudaMemset(flag, 0, sizeof(int)));
        CHECK(cudaDeviceSynchronize());
        nvshmem_barrier_all();
        raw_flag<<<1, threads>>>(flag, peer_flag, out);
        CHECK(cudaDeviceSynchronize());
        print_batches(rank, threads == 1 ? "raw NVLink flag (one thread)" : "raw NVLink flag (128-thread block with barriers)", 4, out);
    }
    nvshmem_barrier_all();

    // 2. NVSHMEM put bandwidth; 3. cudaMemcpyPeer bandwidth.
    size_t sizes[] = {1 << 12, 1 << 16, 1 << 20, 1 << 22, 1 << 24, 1 << 26};
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, rank));
    char *src = (char *)nvshmem_malloc(1 << 26), *dst = (char *)nvshmem_malloc(1 << 26);
    unsigned long long *stamps;
    CHECK(cudaMalloc(&stamps, 2 * sms * sizeof(*stamps)));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (size_t total : sizes) {
        int reps = (int)((256u << 20) / total);
        if (reps < 2) reps = 2;
        if (reps > 64) reps = 64;
        int blocks = (int)(total / (256 << 10));
        if (blocks < 1) blocks = 1;
        if (blocks > sms) blocks = sms;
        nvshmem_barrier_all();
        // Five trials, one line each (bench_world takes their median).
        for (int trial = 0; rank == 0 && trial < 5; trial++) {
            put_blocks<<<blocks, 512>>>(dst, src, total / blocks, 1, reps, stamps);
            CHECK(cudaDeviceSynchronize());
            std::vector<unsigned long long> st(2 * blocks);
            CHECK(cudaMemcpy(st.data(), stamps, st.size() * sizeof(st[0]), cudaMemcpyDeviceToHost));
            unsigned long long first = st[0], last = st[1];
            for (int i = 0; i < blocks; i++) {
                first = st[2 * i] < first ? st[2 * i] : first;
                last = st[2 * i + 1] > last ? st[2 * i + 1] : last;
            }
            printf("bandwidth,nvshmem put %d blocks,%zu,%.3f\n", blocks, total, total * (double)reps / (double)(last - first));
        }
        nvshmem_barrier_all();
    }
    if (rank == 0) {
        char *p0, *p1;
        CHECK(cudaMalloc(&p0, 1 << 26));
        CHECK(cudaSetDevice(1));
        CHECK(cudaMalloc(&p1, 1 << 26));
        CHECK(cudaSetDevice(0));
        cudaError_t e = cudaDeviceEnablePeerAccess(1, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CHECK(e);
        for (size_t total : sizes) {
            int reps = (int)((256u << 20) / total);
            if (reps < 2) reps = 2;
            if (reps > 64) reps = 64;
            CHECK(cudaMemcpyPeer(p1, 1, p0, 0, total));
            CHECK(cudaEventRecord(a));
            for (int r = 0; r < reps; r++) CHECK(cudaMemcpyPeerAsync(p1, 1, p0, 0, total, 0));
            CHECK(cudaEventRecord(b));
            CHECK(cudaEventSynchronize(b));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, a, b));
            printf("bandwidth,cudaMemcpyPeer,%zu,%.3f\n", total, total * (double)reps / (ms * 1e6));
        }
    }
    nvshmem_barrier_all();
    nvshmem_finalize();
    MPI_Finalize();
    return 0;
}
