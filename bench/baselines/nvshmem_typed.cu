// The NVSHMEM baseline of bench_typed between two GPUs (issue 16): the
// same shapes moved with NVSHMEM's strided and row puts, as a ping-pong
// between PE 0 and PE 1 in one block of 256 threads each (bench_typed's
// rank size), timed with the device clock per batch (half a round trip).
//   shape 0: a column of an n x n float matrix (n = 4096): every thread
//            nvshmem_float_iput's its slice of the column (stride n both
//            sides);
//   shape 1: the 64^3 block at the origin of an n^3 float array (n = 512):
//            its 4096 rows of 64 floats, nvshmem_float_put_nbi per row,
//            spread over the threads.
// After the block's puts, thread 0 quiets and sets the peer's signal; the
// peer waits for it, then answers the same way (WINDOW 1, a ping-pong).
// With WINDOW > 1, PE 0 moves the shape WINDOW times, then quiets and
// signals once; PE 1 answers with a signal alone (a stream, as OSU's
// put_bw measures bandwidth).
//   mpirun -np 2 nvshmem_typed BATCHES ITERS [WINDOW] > typed-nvshmem.csv
// prints `shape,bytes,batch,half_rtt_us` (WINDOW 1) or
// `shape,bytes,batch,us_per_transfer` from PE 0.
#include <cstdint>
#include <vector>
#include "nvshmem_mpi.cuh"

__device__ void move(float *a, int shape, int n, int peer) {
    if (shape == 0) {
        int per = (n + blockDim.x - 1) / blockDim.x, k0 = threadIdx.x * per;
        int count = n - k0 < per ? n - k0 : per;
        if (count > 0) nvshmem_float_iput(a + (size_t)k0 * n, a + (size_t)k0 * n, n, n, count, peer);
    } else {
        for (int r = threadIdx.x; r < 64 * 64; r += blockDim.x) {
            size_t off = ((size_t)(r / 64) * n + r % 64) * n;
            nvshmem_float_put_nbi(a + off, a + off, 64, peer);
        }
    }
    __syncthreads();
}

__device__ void wait_for(uint64_t *sig, uint64_t value) {
    if (threadIdx.x == 0) nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, value);
    __syncthreads();
}

__device__ void signal(uint64_t *sig, uint64_t value, int peer) {
    if (threadIdx.x == 0) {
        nvshmem_quiet();
        nvshmemx_signal_op(sig, value, NVSHMEM_SIGNAL_SET, peer);
    }
}

__global__ void pingpong(float *a, uint64_t *sig, int shape, int n, int batches, int iters,
                         int window, unsigned long long *out) {
    int me = nvshmem_my_pe(), peer = 1 - me;
    uint64_t step = 0;
    for (int b = 0; b <= batches; b++) {
        unsigned long long t0 = now();
        for (int i = 0; i < iters; i++) {
            step++;
            if (window == 1) {
                if (me == 1) wait_for(sig, step);
                move(a, shape, n, peer);
                signal(sig, step, peer);
                if (me == 0) wait_for(sig, step);
            } else if (me == 0) {
                for (int w = 0; w < window; w++) move(a, shape, n, peer);
                signal(sig, step, peer);
                wait_for(sig, step);
            } else {
                wait_for(sig, step);
                signal(sig, step, peer);
            }
        }
        unsigned long long t1 = now();
        if (me == 0 && threadIdx.x == 0 && b > 0) out[b - 1] = t1 - t0;
    }
}

int main(int argc, char **argv) {
    int rank, size;
    init_nvshmem_over_mpi(&argc, &argv, &rank, &size);
    if (size != 2) { if (!rank) fprintf(stderr, "run with mpirun -np 2\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
    int batches = atoi(argv[1]), iters = atoi(argv[2]), window = argc > 3 ? atoi(argv[3]) : 1;
    if (window < 1) window = 1;
    unsigned long long *out;
    CHECK(cudaMalloc(&out, batches * sizeof(*out)));
    if (rank == 0) printf("shape,bytes,batch,%s\n", window == 1 ? "half_rtt_us" : "us_per_transfer");
    const int sides[2] = {4096, 512};
    const char *names[2] = {"column of 4096x4096 f32", "64^3 block of 512^3 f32"};
    for (int shape = 0; shape < 2; shape++) {
        int n = sides[shape];
        size_t elems = shape == 0 ? (size_t)n * n : (size_t)n * n * n;
        size_t bytes = 4 * (shape == 0 ? (size_t)n : (size_t)64 * 64 * 64);
        float *a = (float *)nvshmem_malloc(elems * sizeof(float));
        uint64_t *sig = (uint64_t *)nvshmem_malloc(sizeof(uint64_t));
        CHECK(cudaMemset(a, 0, elems * sizeof(float)));
        CHECK(cudaMemset(sig, 0, sizeof(uint64_t)));
        CHECK(cudaDeviceSynchronize());
        nvshmem_barrier_all();
        pingpong<<<1, 256>>>(a, sig, shape, n, batches, iters, window, out);
        CHECK(cudaDeviceSynchronize());
        std::vector<unsigned long long> ns(batches);
        CHECK(cudaMemcpy(ns.data(), out, batches * sizeof(*out), cudaMemcpyDeviceToHost));
        if (rank == 0)
            for (int b = 0; b < batches; b++)
                printf("%s,%zu,%d,%.4f\n", names[shape], bytes, b,
                       ns[b] / 1e3 / iters / (window == 1 ? 2.0 : window));
        nvshmem_barrier_all();
        nvshmem_free(sig);
        nvshmem_free(a);
    }
    nvshmem_finalize();
    MPI_Finalize();
    return 0;
}
