// The host-route baseline of bench_typed (issue 16): what an MPI+CUDA
// program does without CUDA-aware MPI. The origin's host packs the shape
// into a contiguous host buffer with one strided copy (cudaMemcpy3D or
// 2D), sends it with MPI, and the target's host unpacks it with the same
// copy the other way. A ping-pong between two processes, one GPU each:
// half a round trip, timed as bench_typed times dcuda's, with the device
// clock (%globaltimer, stamped by a one-thread kernel on process 0's GPU
// before the batch's first copy and after its last) over batches of
// round trips (20 batches after one untimed, REPS / 20 trips each).
//   shape 0: a column of a 4096 x 4096 float matrix (a 2D copy of 4-byte
//            rows, one row apart);
//   shape 1: the 64^3 block at the origin of a 512^3 float array (one 3D
//            copy of 64-float rows);
//   shape 2: the 128^3 block there (8 MiB, one 3D copy of 128-float rows).
// Ways: "host packing" (pinned host buffers, the best case) and "host
// packing pageable" (malloc'd buffers). Beside them the parts of the
// host route, each timed alone on process 0 (one way): a device-host
// copy of 64 KiB and of 1 MiB, pinned and pageable, each direction; the
// block's strided copies; an MPI ping-pong of 64 KiB and 1 MiB (half a
// round trip) and a stream of 16 x 64 KiB answered by 4 bytes; a 15-plane
// piece placed from mapped pinned memory (as dcuda's target does), alone
// and beside a kernel polling mapped memory. The parts are host calls,
// timed with the host clock (MPI_Wtime) each.
//   mpirun -np 2 host_packed_typed REPS > host-packed.csv
// prints `way,shape,bytes,rep,us` from process 0 (`rep`: the batch for the
// host packing, the repetition for the parts).
#include <mpi.h>
#include <cstdint>
#include <cstring>
#include <vector>
#include "common.cuh"

static const size_t MAT = 4096, CUBE = 512, SIDE = 64;  // SIDE: the 1 MiB block's

struct Shape {
  float *dev;     // the array
  size_t bytes;   // the shape's bytes
  int id;
  size_t side;    // a block's side
};

// The strided copy of `s` between the device array and contiguous `host`.
static void strided(const Shape &s, void *host, bool to_host) {
  if (s.id == 0) {
    // A column: MAT rows of one float, a matrix row apart on the device.
    if (to_host)
      CHECK(cudaMemcpy2D(host, 4, s.dev, MAT * 4, 4, MAT, cudaMemcpyDeviceToHost));
    else
      CHECK(cudaMemcpy2D(s.dev, MAT * 4, host, 4, 4, MAT, cudaMemcpyHostToDevice));
    return;
  }
  cudaMemcpy3DParms p = {};
  cudaPitchedPtr dev = make_cudaPitchedPtr(s.dev, CUBE * 4, CUBE, CUBE);
  cudaPitchedPtr packed = make_cudaPitchedPtr(host, s.side * 4, s.side, s.side);
  p.extent = make_cudaExtent(s.side * 4, s.side, s.side);
  p.srcPtr = to_host ? dev : packed;
  p.dstPtr = to_host ? packed : dev;
  p.kind = to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
}

static int me_ = 0;

// Polls a flag in mapped host memory until the host sets it.
__global__ void spin(int *flag) {
  while (*(volatile int *)flag == 0) {
  }
}

static void print(const char *way, int shape, size_t bytes, const std::vector<double> &us) {
  if (me_ != 0) return;
  for (size_t r = 0; r < us.size(); r++) printf("%s,%d,%zu,%zu,%.3f\n", way, shape, bytes, r, us[r]);
}

// The device clock now, into *t (one thread).
__global__ void stamp(unsigned long long *t) { *t = now(); }

static const int BATCHES = 20;

// Ping-pong of the shape, packed and unpacked by the hosts: half a round
// trip per batch of `reps / BATCHES` trips, from process 0's device
// clock. The copies are synchronous, so the stamps bracket them: the
// first copy waits for the first stamp in the stream, and the second
// stamp runs after the last copy returned.
// `host` gets the same batches timed with the host clock (MPI_Wtime), as
// this baseline was timed before 2026-11-30: the two clocks' agreement.
static std::vector<double> host_packing(const Shape &s, void *buf, int me, int reps,
                                        unsigned long long *clock, std::vector<double> &host) {
  std::vector<double> us;
  int trips = reps / BATCHES > 0 ? reps / BATCHES : 1;
  for (int b = -1; b < BATCHES; b++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (me == 0) {
      stamp<<<1, 1>>>(clock);
      CHECK(cudaGetLastError());
    }
    for (int i = 0; i < trips; i++) {
      for (int turn = 0; turn < 2; turn++) {
        if (me == turn) {
          strided(s, buf, true);
          MPI_Send(buf, (int)s.bytes, MPI_BYTE, 1 - me, 0, MPI_COMM_WORLD);
        } else {
          MPI_Recv(buf, (int)s.bytes, MPI_BYTE, 1 - me, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          strided(s, buf, false);
        }
      }
    }
    if (me == 0) {
      unsigned long long t[2];
      stamp<<<1, 1>>>(clock + 1);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(t, clock, sizeof t, cudaMemcpyDeviceToHost));
      if (b >= 0) {
        us.push_back((t[1] - t[0]) / 1e3 / trips / 2);
        host.push_back((MPI_Wtime() - t0) * 1e6 / trips / 2);
      }
    }
  }
  return us;
}

// `f` timed alone on process 0, `reps` times after 5 untimed.
template <class F> static std::vector<double> alone(int me, int reps, F f) {
  std::vector<double> us;
  if (me != 0) return us;
  for (int r = -5; r < reps; r++) {
    double t0 = MPI_Wtime();
    f();
    if (r >= 0) us.push_back((MPI_Wtime() - t0) * 1e6);
  }
  return us;
}

// MPI ping-pong of `bytes` from `buf` (half a round trip), or with
// `stream` > 1, `stream` messages one way answered by 4 bytes (per stream).
static std::vector<double> mpi_trip(void *buf, size_t bytes, int stream, int me, int reps) {
  std::vector<double> us;
  int ack = 0;
  for (int r = -5; r < reps; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (stream == 1) {
      for (int turn = 0; turn < 2; turn++) {
        if (me == turn) MPI_Send(buf, (int)bytes, MPI_BYTE, 1 - me, 0, MPI_COMM_WORLD);
        else MPI_Recv(buf, (int)bytes, MPI_BYTE, 1 - me, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else if (me == 0) {
      std::vector<MPI_Request> q(stream);
      for (int k = 0; k < stream; k++)
        MPI_Isend((char *)buf + k * bytes, (int)bytes, MPI_BYTE, 1, k, MPI_COMM_WORLD, &q[k]);
      MPI_Waitall(stream, q.data(), MPI_STATUSES_IGNORE);
      MPI_Recv(&ack, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      for (int k = 0; k < stream; k++)
        MPI_Recv((char *)buf + k * bytes, (int)bytes, MPI_BYTE, 0, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&ack, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
    }
    if (r >= 0) us.push_back((MPI_Wtime() - t0) * 1e6 / (stream == 1 ? 2 : 1));
  }
  return us;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, size, ndev;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(cudaGetDeviceCount(&ndev));
  if (size != 2 || ndev < 1) {
    fprintf(stderr, "host_packed_typed: needs 2 processes and a GPU each\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  CHECK(cudaSetDevice(me % ndev));
  me_ = me;
  int reps = argc > 1 ? atoi(argv[1]) : 200;
  const size_t MiB = 1 << 20, piece = 64 << 10;
  Shape shapes[3] = {{nullptr, MAT * 4, 0, 0}, {nullptr, 64 * 64 * 64 * 4, 1, 64},
                     {nullptr, 128 * 128 * 128 * 4, 2, 128}};
  CHECK(cudaMalloc(&shapes[0].dev, MAT * MAT * 4));
  CHECK(cudaMalloc(&shapes[1].dev, CUBE * CUBE * CUBE * 4));
  shapes[2].dev = shapes[1].dev;
  const size_t most = shapes[2].bytes;  // the largest shape, over 16 pieces
  void *pinned, *pageable = malloc(most), *dev;
  CHECK(cudaMallocHost(&pinned, most));
  CHECK(cudaMalloc(&dev, MiB));
  unsigned long long *clock;
  CHECK(cudaMalloc(&clock, 2 * sizeof *clock));
  memset(pageable, 1, MiB);
  if (me == 0) printf("way,shape,bytes,rep,us\n");
  for (const Shape &s : shapes) {
    std::vector<double> host[2];
    print("host packing", s.id, s.bytes, host_packing(s, pinned, me, reps, clock, host[0]));
    print("host packing pageable", s.id, s.bytes, host_packing(s, pageable, me, reps, clock, host[1]));
    print("host clock: host packing", s.id, s.bytes, host[0]);
    print("host clock: host packing pageable", s.id, s.bytes, host[1]);
  }
  for (size_t b : {piece, MiB}) {
    print("D2H pinned", -1, b, alone(me, reps, [&] { CHECK(cudaMemcpy(pinned, dev, b, cudaMemcpyDeviceToHost)); }));
    print("D2H pageable", -1, b, alone(me, reps, [&] { CHECK(cudaMemcpy(pageable, dev, b, cudaMemcpyDeviceToHost)); }));
    print("H2D pinned", -1, b, alone(me, reps, [&] { CHECK(cudaMemcpy(dev, pinned, b, cudaMemcpyHostToDevice)); }));
    print("H2D pageable", -1, b, alone(me, reps, [&] { CHECK(cudaMemcpy(dev, pageable, b, cudaMemcpyHostToDevice)); }));
    print("host memcpy", -1, b, alone(me, reps, [&] { memcpy(pageable, pinned, b); }));
    print("MPI ping-pong pinned", -1, b, mpi_trip(pinned, b, 1, me, reps));
    print("MPI ping-pong pageable", -1, b, mpi_trip(pageable, b, 1, me, reps));
  }
  print("MPI stream 16 pinned", -1, 16 * piece, mpi_trip(pinned, piece, 16, me, reps));
  print("block D2H 3D pinned", 1, MiB, alone(me, reps, [&] { strided(shapes[1], pinned, true); }));
  print("block H2D 3D pinned", 1, MiB, alone(me, reps, [&] { strided(shapes[1], pinned, false); }));
  // One 64 KiB piece of the block (4 planes of 64 rows) placed from host
  // memory, and from device memory (the target host's scratch).
  for (int from_dev = 0; from_dev < 2; from_dev++) {
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(from_dev ? dev : pinned, SIDE * 4, SIDE, SIDE);
    p.dstPtr = make_cudaPitchedPtr(shapes[1].dev, CUBE * 4, CUBE, CUBE);
    p.extent = make_cudaExtent(SIDE * 4, SIDE, 4);
    p.kind = from_dev ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
    print(from_dev ? "piece place 3D from device" : "piece place 3D from pinned", 1, piece,
          alone(me, reps, [&] { CHECK(cudaMemcpy3D(&p)); }));
  }
  // A 15-plane piece (240 KiB, what dcuda's host route places) from
  // mapped pinned memory, as dcuda copies it (cudaMemcpyDefault: unified
  // addressing tells host from device) and as host memory, then the same
  // while a kernel polls a flag in mapped memory (a waiting rank).
  void *mapped;
  CHECK(cudaHostAlloc(&mapped, 16 * piece, cudaHostAllocMapped | cudaHostAllocPortable));
  volatile int *flag;
  CHECK(cudaHostAlloc((void **)&flag, 64, cudaHostAllocMapped | cudaHostAllocPortable));
  *flag = 0;
  cudaStream_t poller;
  CHECK(cudaStreamCreateWithFlags(&poller, cudaStreamNonBlocking));
  for (int polled = 0; polled < 2; polled++) {
    if (polled) spin<<<1, 32, 0, poller>>>((int *)flag);
    for (int unified = 0; unified < 2; unified++) {
      cudaMemcpy3DParms p = {};
      p.srcPtr = make_cudaPitchedPtr(mapped, SIDE * 4, SIDE, SIDE);
      p.dstPtr = make_cudaPitchedPtr(shapes[1].dev, CUBE * 4, CUBE, CUBE);
      p.extent = make_cudaExtent(SIDE * 4, SIDE, 15);
      p.kind = unified ? cudaMemcpyDefault : cudaMemcpyHostToDevice;
      const char *names[2][2] = {{"15 planes from mapped as host", "15 planes from mapped unified"},
                                 {"15 planes from mapped as host polled", "15 planes from mapped unified polled"}};
      print(names[polled][unified], 1, 15 * 16384, alone(me, reps, [&] { CHECK(cudaMemcpy3D(&p)); }));
    }
    if (polled) {
      *flag = 1;
      CHECK(cudaStreamSynchronize(poller));
    }
  }
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
