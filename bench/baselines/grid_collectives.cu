// The raw CUDA baseline of bench_collectives: a cooperative kernel whose
// blocks run cooperative groups' grid.sync() (mode 0), or an allreduce of
// one double per block written the way dcuda's is (mode 1: each block
// writes its slot of one of two parities, grid.sync(), every block folds all
// slots with all its threads in order and reduces them in the block).
// Block 0 times each batch with %globaltimer.
//   grid_collectives MODE BLOCKS THREADS BATCHES ITERS
// prints one line per batch: mode,blocks,batch,ns_per_op
#include <cooperative_groups.h>
#include "common.cuh"
namespace cg = cooperative_groups;

__global__ void grid_loop(int mode, int batches, int iters, volatile double* slots,
                          unsigned long long* out, double* result) {
  cg::grid_group grid = cg::this_grid();
  __shared__ double part[33];
  int nb = gridDim.x;
  double total = 0.0;
  unsigned calls = 0;
  for (int b = 0; b < batches; b++) {
    grid.sync();
    unsigned long long t0 = now();
    for (int i = 0; i < iters; i++) {
      if (mode == 0) {
        grid.sync();
      } else {
        volatile double* s = slots + (calls++ & 1) * nb;
        if (threadIdx.x == 0) s[blockIdx.x] = blockIdx.x + 1.0;
        grid.sync();
        double acc = 0.0;
        for (int r = threadIdx.x; r < nb; r += blockDim.x) acc += s[r];
        total = block_sum(acc, part);
      }
    }
    unsigned long long t1 = now();
    if (blockIdx.x == 0 && threadIdx.x == 0) out[b] = t1 - t0;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) *result = total;
}

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s MODE BLOCKS THREADS BATCHES ITERS\n", argv[0]);
    return 2;
  }
  int mode = atoi(argv[1]), blocks = atoi(argv[2]), threads = atoi(argv[3]);
  int batches = atoi(argv[4]), iters = atoi(argv[5]);
  int per_sm = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_loop, threads, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (blocks > per_sm * sms) {
    fprintf(stderr, "%d blocks of %d threads do not fit (at most %d)\n", blocks, threads, per_sm * sms);
    return 1;
  }
  double *slots, *result;
  unsigned long long* out;
  CHECK(cudaMalloc(&slots, 2 * blocks * sizeof(double)));
  CHECK(cudaMalloc(&result, sizeof(double)));
  CHECK(cudaMalloc(&out, batches * sizeof(unsigned long long)));
  void* params[] = {&mode, &batches, &iters, &slots, &out, &result};
  CHECK(cudaLaunchCooperativeKernel((void*)grid_loop, blocks, threads, params, 0, 0));
  CHECK(cudaDeviceSynchronize());
  unsigned long long* host = (unsigned long long*)malloc(batches * sizeof(unsigned long long));
  double r;
  CHECK(cudaMemcpy(host, out, batches * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&r, result, sizeof(double), cudaMemcpyDeviceToHost));
  double want = (double)blocks * (blocks + 1) / 2;
  if (mode == 1 && r != want) {
    fprintf(stderr, "allreduce gave %f, want %f\n", r, want);
    return 1;
  }
  for (int b = 0; b < batches; b++)
    printf("%d,%d,%d,%.3f\n", mode, blocks, b, (double)host[b] / iters);
  return 0;
}
