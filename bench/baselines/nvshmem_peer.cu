// Raw baselines for the many-GPU benchmarks (issue 5), built on the GPU
// machine with nvcc against the NVSHMEM installed there (see
// scripts/gpu-world.sh). Two processes, one GPU each, under mpirun:
//   1. NVSHMEM put-with-signal + signal-wait ping-pong between the GPUs
//      (4-byte payload; one thread), half round trip;
//   2. NVSHMEM put bandwidth from PE 0 to PE 1 (`blocks` blocks, each
//      nvshmemx_putmem_block of its slice, then nvshmem_quiet);
//   3. cudaMemcpyPeer bandwidth from GPU 0 to GPU 1 (process 0 only).
// Prints CSV lines: measure,x,value,unit.
#include <cstdint>
#include "nvshmem_mpi.cuh"

__global__ void pingpong(int *buf, uint64_t *sig, int warmup, int iters, unsigned long long *out) {
    int me = nvshmem_my_pe(), peer = 1 - me;
    uint64_t t0 = 0;
    for (int i = 1; i <= warmup + iters; i++) {
        if (i == warmup + 1) t0 = now();
        if (me == 1) nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, i);
        nvshmem_putmem_signal_nbi(buf, buf + 1, 4, sig, i, NVSHMEM_SIGNAL_SET, peer);
        if (me == 0) nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, i);
    }
    if (me == 0) *out = now() - t0;
}

__global__ void put_blocks(char *dst, const char *src, size_t per, int peer) {
    size_t off = (size_t)blockIdx.x * per;
    nvshmemx_putmem_block(dst + off, src + off, per, peer);
}

int main(int argc, char **argv) {
    int rank, size;
    init_nvshmem_over_mpi(&argc, &argv, &rank, &size);
    if (size != 2) { if (!rank) fprintf(stderr, "run with mpirun -np 2\n"); MPI_Abort(MPI_COMM_WORLD, 1); }

    // 1. Latency.
    int *buf = (int *)nvshmem_malloc(64);
    uint64_t *sig = (uint64_t *)nvshmem_malloc(sizeof(uint64_t));
    CHECK(cudaMemset(sig, 0, sizeof(uint64_t)));
    unsigned long long *out;
    CHECK(cudaMalloc(&out, sizeof(*out)));
    nvshmem_barrier_all();
    const int warmup = 1000, iters = 20000;
    pingpong<<<1, 1>>>(buf, sig, warmup, iters, out);
    CHECK(cudaDeviceSynchronize());
    unsigned long long ns = 0;
    CHECK(cudaMemcpy(&ns, out, sizeof(ns), cudaMemcpyDeviceToHost));
    if (rank == 0) printf("nvshmem put-with-signal ping-pong 4 B (half RTT),4,%.4f,us\n", ns / 1e3 / iters / 2.0);
    nvshmem_barrier_all();

    // 2. NVSHMEM put bandwidth; 3. cudaMemcpyPeer bandwidth.
    size_t sizes[] = {1 << 12, 1 << 16, 1 << 20, 1 << 22, 1 << 24, 1 << 26};
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, rank));
    char *src = (char *)nvshmem_malloc(1 << 26), *dst = (char *)nvshmem_malloc(1 << 26);
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
        if (rank == 0) {
            CHECK(cudaEventRecord(a));
            for (int r = 0; r < reps; r++) put_blocks<<<blocks, 512>>>(dst, src, total / blocks, 1);
            nvshmemx_quiet_on_stream(0);
            CHECK(cudaEventRecord(b));
            CHECK(cudaEventSynchronize(b));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, a, b));
            printf("nvshmem put bandwidth %d blocks,%zu,%.3f,GB/s\n", blocks, total, total * (double)reps / (ms * 1e6));
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
            printf("cudaMemcpyPeer bandwidth,%zu,%.3f,GB/s\n", total, total * (double)reps / (ms * 1e6));
        }
    }
    nvshmem_barrier_all();
    nvshmem_finalize();
    MPI_Finalize();
    return 0;
}
