// The raw CUDA baseline of bench_chunks: a cooperative kernel whose blocks
// do an allgather (mode 0) or an all-to-all (mode 1) of chunks of LEN
// 64-bit words between their buffers, the way dcuda's ranks do inside a
// GPU: grid.sync() (every source is ready), every block copies the chunks
// it receives straight from the other blocks' sources with all its
// threads, grid.sync() (every destination is complete, every source free).
// Block 0 times each batch with %globaltimer.
//   grid_chunks MODE BLOCKS THREADS LEN BATCHES ITERS
// prints one line per batch: mode,blocks,batch,ns_per_op
#include <cooperative_groups.h>
#include "common.cuh"
namespace cg = cooperative_groups;

__global__ void chunk_loop(int mode, long len, int batches, int iters,
                           const unsigned long long* src, unsigned long long* dst,
                           unsigned long long* out) {
  cg::grid_group grid = cg::this_grid();
  long nb = gridDim.x, b = blockIdx.x, per = nb * len;
  unsigned long long* mine = dst + b * per;
  for (int k = 0; k < batches; k++) {
    grid.sync();
    unsigned long long t0 = now();
    for (int i = 0; i < iters; i++) {
      grid.sync();
      for (long x = threadIdx.x; x < per; x += blockDim.x) {
        long j = x / len, e = x % len;
        // Chunk j of the destination: block j's first chunk (allgather), or
        // its chunk b (all-to-all).
        mine[x] = src[j * per + (mode == 0 ? 0 : b * len) + e];
      }
      grid.sync();
    }
    unsigned long long t1 = now();
    if (b == 0 && threadIdx.x == 0) out[k] = t1 - t0;
  }
}

int main(int argc, char** argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: %s MODE BLOCKS THREADS LEN BATCHES ITERS\n", argv[0]);
    return 2;
  }
  int mode = atoi(argv[1]), blocks = atoi(argv[2]), threads = atoi(argv[3]);
  long len = atol(argv[4]);
  int batches = atoi(argv[5]), iters = atoi(argv[6]);
  int per_sm = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, chunk_loop, threads, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (blocks > per_sm * sms) {
    fprintf(stderr, "%d blocks of %d threads do not fit (at most %d)\n", blocks, threads, per_sm * sms);
    return 1;
  }
  size_t words = (size_t)blocks * blocks * len;
  unsigned long long *src, *dst, *out;
  CHECK(cudaMalloc(&src, words * 8));
  CHECK(cudaMalloc(&dst, words * 8));
  CHECK(cudaMalloc(&out, batches * sizeof(unsigned long long)));
  unsigned long long* host = (unsigned long long*)malloc(words * 8);
  for (size_t i = 0; i < words; i++) host[i] = i * 2654435761ull;
  CHECK(cudaMemcpy(src, host, words * 8, cudaMemcpyHostToDevice));
  void* params[] = {&mode, &len, &batches, &iters, &src, &dst, &out};
  CHECK(cudaLaunchCooperativeKernel((void*)chunk_loop, blocks, threads, params, 0, 0));
  CHECK(cudaDeviceSynchronize());
  // The result, checked like dcuda's: every destination word.
  unsigned long long* got = (unsigned long long*)malloc(words * 8);
  CHECK(cudaMemcpy(got, dst, words * 8, cudaMemcpyDeviceToHost));
  long per = blocks * len;
  for (long b = 0; b < blocks; b++)
    for (long x = 0; x < per; x++) {
      long j = x / len, e = x % len;
      unsigned long long want = host[j * per + (mode == 0 ? 0 : b * len) + e];
      if (got[b * per + x] != want) {
        fprintf(stderr, "block %ld word %ld: got %llu, want %llu\n", b, x, got[b * per + x], want);
        return 1;
      }
    }
  CHECK(cudaMemcpy(host, out, batches * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  for (int k = 0; k < batches; k++)
    printf("%d,%d,%d,%.3f\n", mode, blocks, k, (double)host[k] / iters);
  return 0;
}
