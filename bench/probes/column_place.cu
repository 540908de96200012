// How fast the copy engine places a column (issue 16, the host route's
// target side): 4096 rows of one float, a 4096-float row apart, into a
// device matrix, queued on a stream and waited for, from pinned host
// memory (what dcuda's target host does today) and from device memory
// after a contiguous copy of the piece there (one 1D copy, then the 2D
// one, both queued before the wait). Median and p99 of 200 after 20
// untimed, host clock around each (queue and wait), µs.
//   nvcc -O2 -arch=sm_90 -o column_place column_place.cu && ./column_place
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

static const size_t N = 4096;

template <class F> static void timed(const char *name, F f) {
  std::vector<double> us;
  for (int r = -20; r < 200; r++) {
    auto t0 = std::chrono::steady_clock::now();
    if (f() != 0) { printf("%s: failed\n", name); return; }
    auto t1 = std::chrono::steady_clock::now();
    if (r >= 0) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  printf("%s,%.2f,%.2f\n", name, us[us.size() / 2], us[us.size() * 99 / 100]);
}

int main() {
  float *matrix, *piece_dev, *pinned;
  CHECK(cudaMalloc(&matrix, N * N * 4));
  CHECK(cudaMalloc(&piece_dev, N * 4));
  CHECK(cudaMallocHost(&pinned, N * 4));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // The column from `src` (4-byte rows, packed), as a 2D copy or as a 3D
  // copy of one plane (as dcuda's host queues a piece, cuMemcpy3DAsync).
  auto column_2d = [&](const float *src, cudaMemcpyKind kind) {
    return cudaMemcpy2DAsync(matrix + 1, N * 4, src, 4, 4, N, kind, s);
  };
  auto column_3d = [&](float *src, cudaMemcpyKind kind) {
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(src, 4, 1, N);
    p.dstPtr = make_cudaPitchedPtr(matrix + 1, N * 4, N, N);
    p.extent = make_cudaExtent(4, N, 1);
    p.kind = kind;
    return cudaMemcpy3DAsync(&p, s);
  };
  auto to_device = [&] { return cudaMemcpyAsync(piece_dev, pinned, N * 4, cudaMemcpyHostToDevice, s); };
  // Queues `copies` in order, then waits: 0 when all went well.
  auto run = [&](std::initializer_list<std::function<cudaError_t()>> copies) {
    for (auto &c : copies)
      if (c() != cudaSuccess) return 1;
    return (int)cudaStreamSynchronize(s);
  };
  const auto H2D = cudaMemcpyHostToDevice, D2D = cudaMemcpyDeviceToDevice;
  printf("way,median_us,p99_us\n");
  timed("column 2D from pinned", [&] { return run({[&] { return column_2d(pinned, H2D); }}); });
  timed("16 KiB 1D from pinned", [&] { return run({to_device}); });
  timed("column 2D from device", [&] { return run({[&] { return column_2d(piece_dev, D2D); }}); });
  timed("1D to device then 2D from device",
        [&] { return run({to_device, [&] { return column_2d(piece_dev, D2D); }}); });
  timed("column 3D from pinned", [&] { return run({[&] { return column_3d(pinned, H2D); }}); });
  timed("column 3D from device", [&] { return run({[&] { return column_3d(piece_dev, D2D); }}); });
  return 0;
}
