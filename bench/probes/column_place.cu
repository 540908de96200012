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
  printf("way,median_us,p99_us\n");
  timed("column 2D from pinned", [&] {
    if (cudaMemcpy2DAsync(matrix + 1, N * 4, pinned, 4, 4, N, cudaMemcpyHostToDevice, s)) return 1;
    return (int)cudaStreamSynchronize(s);
  });
  timed("16 KiB 1D from pinned", [&] {
    if (cudaMemcpyAsync(piece_dev, pinned, N * 4, cudaMemcpyHostToDevice, s)) return 1;
    return (int)cudaStreamSynchronize(s);
  });
  timed("column 2D from device", [&] {
    if (cudaMemcpy2DAsync(matrix + 1, N * 4, piece_dev, 4, 4, N, cudaMemcpyDeviceToDevice, s)) return 1;
    return (int)cudaStreamSynchronize(s);
  });
  timed("1D to device then 2D from device", [&] {
    if (cudaMemcpyAsync(piece_dev, pinned, N * 4, cudaMemcpyHostToDevice, s)) return 1;
    if (cudaMemcpy2DAsync(matrix + 1, N * 4, piece_dev, 4, 4, N, cudaMemcpyDeviceToDevice, s)) return 1;
    return (int)cudaStreamSynchronize(s);
  });
  // The same with 3D copies, as dcuda's host queues them (cuMemcpy3DAsync).
  timed("column 3D from pinned", [&] {
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(pinned, 4, 1, N);
    p.dstPtr = make_cudaPitchedPtr(matrix + 1, N * 4, N, N);
    p.extent = make_cudaExtent(4, N, 1);
    p.kind = cudaMemcpyHostToDevice;
    if (cudaMemcpy3DAsync(&p, s)) return 1;
    return (int)cudaStreamSynchronize(s);
  });
  timed("column 3D from device", [&] {
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(piece_dev, 4, 1, N);
    p.dstPtr = make_cudaPitchedPtr(matrix + 1, N * 4, N, N);
    p.extent = make_cudaExtent(4, N, 1);
    p.kind = cudaMemcpyDeviceToDevice;
    if (cudaMemcpy3DAsync(&p, s)) return 1;
    return (int)cudaStreamSynchronize(s);
  });
  return 0;
}
