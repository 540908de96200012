// The hand-written baselines of bench_plans between the GPUs of one node
// (issue 18): process 0 holds the host array; every process one GPU, under
// mpirun. The best a user writes by hand: each other process hands process
// 0 its device buffer through CUDA IPC, and process 0 copies every share
// straight between its host array and each GPU on a stream of its own
// (the copies of all GPUs at once). A broadcast is the same copy of the
// whole array to every GPU, or one copy to GPU 0 and ncclBroadcast.
// Host arrays pageable (as bench_plans' and a Vec's) and pinned.
// Timed with the host clock around each call on process 0, every process
// starting together (MPI_Barrier) and the call ending when every copy is
// done, as bench_plans times the plans.
//   mpirun -np 2 plans_by_hand REPS SCATTER_BYTES BROADCAST_BYTES > by-hand.csv
// prints `pattern,method,bytes,rep,ms` from process 0.
#include <chrono>
#include <cstring>
#include <vector>
#include "nccl_mpi.cuh"

static double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int ndev;
  CHECK(cudaGetDeviceCount(&ndev));
  if (ndev < size) { fprintf(stderr, "plans_by_hand: %d processes, %d GPUs\n", size, ndev); MPI_Abort(MPI_COMM_WORLD, 1); }
  CHECK(cudaSetDevice(rank));
  int reps = atoi(argv[1]);
  size_t scatter = strtoull(argv[2], nullptr, 10), bcast = strtoull(argv[3], nullptr, 10);
  size_t share = scatter / size, most = scatter > bcast ? scatter : bcast;
  char* mine;
  CHECK(cudaMalloc(&mine, most));
  // Process 0 opens every process's buffer and makes a stream on its GPU.
  cudaIpcMemHandle_t h;
  CHECK(cudaIpcGetMemHandle(&h, mine));
  std::vector<cudaIpcMemHandle_t> all(size);
  MPI_Gather(&h, sizeof(h), MPI_BYTE, all.data(), sizeof(h), MPI_BYTE, 0, MPI_COMM_WORLD);
  std::vector<char*> dst(size);
  std::vector<cudaStream_t> st(size);
  if (rank == 0) {
    for (int p = 0; p < size; p++) {
      CHECK(cudaSetDevice(p));
      if (p == 0) dst[p] = mine;
      else CHECK(cudaIpcOpenMemHandle((void**)&dst[p], all[p], cudaIpcMemLazyEnablePeerAccess));
      CHECK(cudaStreamCreateWithFlags(&st[p], cudaStreamNonBlocking));
    }
    CHECK(cudaSetDevice(0));
  }
  ncclComm_t comm = nccl_over_mpi(rank, size);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));

  char* pageable = (char*)malloc(most);
  char* pinned = nullptr;
  CHECK(cudaMallocHost(&pinned, most));
  memset(pageable, 1, most);
  memset(pinned, 1, most);
  if (rank == 0) printf("pattern,method,bytes,rep,ms\n");
  auto timed = [&](const char* pattern, const char* method, size_t bytes, auto call) {
    for (int r = -1; r < reps; r++) {  // rep -1: the first call, not printed
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = now_ms();
      call();
      MPI_Barrier(MPI_COMM_WORLD);
      double t1 = now_ms();
      if (rank == 0 && r >= 0) printf("%s,%s,%zu,%d,%.4f\n", pattern, method, bytes, r, t1 - t0);
    }
  };
  for (int pin = 0; pin < 2; pin++) {
    char* host = pin ? pinned : pageable;
    const char* ipc = pin ? "ipc pinned" : "ipc pageable";
    timed("scatter", ipc, scatter, [&] {
      if (rank != 0) return;
      for (int p = 0; p < size; p++) { CHECK(cudaSetDevice(p)); CHECK(cudaMemcpyAsync(dst[p], host + p * share, share, cudaMemcpyHostToDevice, st[p])); }
      for (int p = 0; p < size; p++) CHECK(cudaStreamSynchronize(st[p]));
      CHECK(cudaSetDevice(0));
    });
    timed("gather", ipc, scatter, [&] {
      if (rank != 0) return;
      for (int p = 0; p < size; p++) { CHECK(cudaSetDevice(p)); CHECK(cudaMemcpyAsync(host + p * share, dst[p], share, cudaMemcpyDeviceToHost, st[p])); }
      for (int p = 0; p < size; p++) CHECK(cudaStreamSynchronize(st[p]));
      CHECK(cudaSetDevice(0));
    });
    timed("broadcast", ipc, bcast, [&] {
      if (rank != 0) return;
      for (int p = 0; p < size; p++) { CHECK(cudaSetDevice(p)); CHECK(cudaMemcpyAsync(dst[p], host, bcast, cudaMemcpyHostToDevice, st[p])); }
      for (int p = 0; p < size; p++) CHECK(cudaStreamSynchronize(st[p]));
      CHECK(cudaSetDevice(0));
    });
    timed("broadcast", pin ? "nccl pinned" : "nccl pageable", bcast, [&] {
      if (rank == 0) CHECK(cudaMemcpyAsync(mine, host, bcast, cudaMemcpyHostToDevice, s));
      NCCLCHECK(ncclBroadcast(mine, mine, bcast, ncclChar, 0, comm, s));
      CHECK(cudaStreamSynchronize(s));
    });
  }
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
