// The baseline of bench_world_allreduce: ncclAllReduce (float sum, in
// place) of each GPU's buffer, one process per GPU under mpirun, timed with
// the device clock: a one-thread kernel stamps %globaltimer before and
// after each batch of `iters` allreduces on the stream.
//   mpirun -np 2 nccl_allreduce BATCHES ITERS BYTES... > nccl.csv
// prints `bytes,batch,ns` (ns per allreduce) from process 0.
#include <cstdlib>
#include <vector>
#include "nccl_mpi.cuh"

__global__ void stamp(unsigned long long* at) { *at = now(); }
__global__ void fill(float* b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) b[i] = 1.0f;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(cudaSetDevice(rank));
  int batches = atoi(argv[1]), iters = atoi(argv[2]);
  ncclComm_t comm = nccl_over_mpi(rank, size);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  unsigned long long* t;
  CHECK(cudaMalloc(&t, 2 * sizeof(unsigned long long)));
  if (rank == 0) printf("bytes,batch,ns\n");
  for (int a = 3; a < argc; a++) {
    size_t bytes = strtoull(argv[a], nullptr, 10), n = bytes / sizeof(float);
    float* buf;
    CHECK(cudaMalloc(&buf, n * sizeof(float)));
    fill<<<264, 256, 0, s>>>(buf, n);
    for (int w = 0; w < 5; w++) NCCLCHECK(ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, s));
    CHECK(cudaStreamSynchronize(s));
    for (int b = 0; b < batches; b++) {
      MPI_Barrier(MPI_COMM_WORLD);
      stamp<<<1, 1, 0, s>>>(t);
      for (int i = 0; i < iters; i++) NCCLCHECK(ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, s));
      stamp<<<1, 1, 0, s>>>(t + 1);
      unsigned long long h[2];
      CHECK(cudaMemcpyAsync(h, t, sizeof(h), cudaMemcpyDeviceToHost, s));
      CHECK(cudaStreamSynchronize(s));
      if (rank == 0) printf("%zu,%d,%.1f\n", n * sizeof(float), b, double(h[1] - h[0]) / iters);
    }
    CHECK(cudaFree(buf));
  }
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
