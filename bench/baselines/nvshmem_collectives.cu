// The NVSHMEM baseline of bench_world_collectives: collectives over every
// block of two GPUs inside one kernel per GPU (nvshmemx_collective_launch,
// so the blocks are co-resident and grid.sync() works).
//   barrier:   grid.sync(); block 0: nvshmemx_barrier_all_block(); grid.sync()
//   allreduce: each block writes its double to its slot (two parities),
//              grid.sync(); block 0 folds the slots in order and reduces
//              them in the block, nvshmemx_double_sum_reduce_block() on the
//              world team; grid.sync(); every block reads the result.
// Block 0 of PE 0 times each batch with %globaltimer.
//   mpirun -np 2 nvshmem_collectives BATCHES ITERS BLOCKS...
// PE 0 prints one line per batch: collective,blocks_per_gpu,batch,ns_per_op
#include <cooperative_groups.h>
#include "nvshmem_mpi.cuh"
namespace cg = cooperative_groups;

__global__ void world_loop(int mode, int batches, int iters, volatile double* slots,
                           double* src, double* dst, unsigned long long* out, double* result) {
  cg::grid_group grid = cg::this_grid();
  __shared__ double part[33];
  int nb = gridDim.x;
  double value = nvshmem_my_pe() * nb + blockIdx.x + 1.0;
  double total = 0.0;
  unsigned calls = 0;
  for (int b = 0; b < batches; b++) {
    grid.sync();
    if (blockIdx.x == 0) nvshmemx_barrier_all_block();
    grid.sync();
    unsigned long long t0 = now();
    for (int i = 0; i < iters; i++) {
      if (mode == 0) {
        grid.sync();
        if (blockIdx.x == 0) nvshmemx_barrier_all_block();
        grid.sync();
      } else {
        volatile double* s = slots + (calls++ & 1) * nb;
        if (threadIdx.x == 0) s[blockIdx.x] = value;
        grid.sync();
        if (blockIdx.x == 0) {
          double acc = 0.0;
          for (int r = threadIdx.x; r < nb; r += blockDim.x) acc += s[r];
          double device_total = block_sum(acc, part);
          if (threadIdx.x == 0) src[0] = device_total;
          __syncthreads();
          nvshmemx_double_sum_reduce_block(NVSHMEM_TEAM_WORLD, dst, src, 1);
        }
        grid.sync();
        total = *(volatile double*)dst;
      }
    }
    unsigned long long t1 = now();
    if (blockIdx.x == 0 && threadIdx.x == 0) out[b] = t1 - t0;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) *result = total;
}

int main(int argc, char** argv) {
  int rank, size;
  init_nvshmem_over_mpi(&argc, &argv, &rank, &size);
  if (argc < 4) {
    if (!rank) fprintf(stderr, "usage: %s BATCHES ITERS BLOCKS...\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  int batches = atoi(argv[1]), iters = atoi(argv[2]), threads = 128;
  double* src = (double*)nvshmem_malloc(sizeof(double));
  double* dst = (double*)nvshmem_malloc(sizeof(double));
  unsigned long long* out;
  double *result, *slots;
  CHECK(cudaMalloc(&out, batches * sizeof(unsigned long long)));
  CHECK(cudaMalloc(&result, sizeof(double)));
  unsigned long long* host = (unsigned long long*)malloc(batches * sizeof(unsigned long long));
  const char* names[] = {"barrier", "allreduce"};
  for (int mode = 0; mode < 2; mode++) {
    for (int a = 3; a < argc; a++) {
      int blocks = atoi(argv[a]), fit = 0;
      nvshmemx_collective_launch_query_gridsize((const void*)world_loop, threads, 0, 0, &fit);
      if (blocks > fit) {
        if (!rank) fprintf(stderr, "%d blocks do not fit (at most %d); skipped\n", blocks, fit);
        continue;
      }
      CHECK(cudaMalloc(&slots, 2 * blocks * sizeof(double)));
      void* params[] = {&mode, &batches, &iters, &slots, &src, &dst, &out, &result};
      if (nvshmemx_collective_launch((const void*)world_loop, blocks, threads, params, 0, 0) != 0) {
        fprintf(stderr, "PE %d: nvshmemx_collective_launch of %d blocks failed\n", rank, blocks);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaFree(slots));
      double r;
      CHECK(cudaMemcpy(host, out, batches * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(&r, result, sizeof(double), cudaMemcpyDeviceToHost));
      double n = (double)blocks * size, want = n * (n + 1) / 2;
      if (mode == 1 && r != want) {
        fprintf(stderr, "PE %d: allreduce gave %f, want %f\n", rank, r, want);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      if (!rank)
        for (int b = 0; b < batches; b++)
          printf("%s,%d,%d,%.1f\n", names[mode], blocks, b, (double)host[b] / iters);
      fflush(stdout);
    }
  }
  nvshmem_free(src);
  nvshmem_free(dst);
  nvshmem_finalize();
  MPI_Finalize();
  return 0;
}
