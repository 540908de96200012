// Jacobi 2D on one GPU in CUDA C, compiled by nvcc: the same algorithm,
// decomposition and host loop as `jacobi_mpi` on one process (the Rust
// sweep of src/compute.rs and the step kernel of src/baseline.rs), so that
// timing both on one GPU compares the code nvcc and rustc generate.
//
//   nvcc -O3 -arch=sm_90 -o jacobi_single jacobi_single.cu
//   ./jacobi_single --size 4096 --iters 1000 [--threads 512] [--ranks B] [--csv]
//
// Timed like the Rust programs: %globaltimer stamps written by one-thread
// kernels queued before and after the iterations.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      fprintf(stderr, "jacobi_single: %s failed: %s\n", #call,               \
              cudaGetErrorString(e));                                          \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

__device__ __forceinline__ void split(unsigned n, unsigned parts, unsigned i,
                                      unsigned *lo, unsigned *hi) {
  *lo = (unsigned)((unsigned long long)i * n / parts);
  *hi = (unsigned)((unsigned long long)(i + 1) * n / parts);
}

// The sweep: a thread walks down its columns, the row above and its own in
// registers (three loads a point), four rows at a time, as src/compute.rs;
// four columns at a time where rows are 16-byte aligned.
__device__ __forceinline__ float point(const float *__restrict__ a, size_t i,
                                       float south, float north) {
  return 0.25f * (a[i + 1] + a[i - 1] + south + north);
}

// Four columns at a time where rows are 16-byte aligned, as sweep_by4 in
// src/compute.rs: the same sums in the same order, one float4 load a row;
// the grid's boundary columns written back unchanged.
__device__ __forceinline__ void row4(const float *__restrict__ a,
                                     float *__restrict__ b, size_t i,
                                     bool first, bool last, float4 here,
                                     float4 north, float4 south, float *norm) {
  float west = a[i - 1], east = a[i + 4];
  float4 v;
  v.x = 0.25f * (here.y + west + south.x + north.x);
  v.y = 0.25f * (here.z + here.x + south.y + north.y);
  v.z = 0.25f * (here.w + here.y + south.z + north.z);
  v.w = 0.25f * (east + here.z + south.w + north.w);
  if (first) v.x = here.x;
  if (last) v.w = here.w;
  *reinterpret_cast<float4 *>(b + i) = v;
  float c0 = v.x - here.x, c1 = v.y - here.y, c2 = v.z - here.z, c3 = v.w - here.w;
  *norm += c0 * c0; *norm += c1 * c1; *norm += c2 * c2; *norm += c3 * c3;
}

__device__ __forceinline__ float sweep_by4(const float *__restrict__ a,
                                           float *__restrict__ b, size_t nx,
                                           size_t r0, size_t r1,
                                           size_t thread, size_t threads) {
  float norm = 0.0f;
  auto load = [&](size_t i) { return *reinterpret_cast<const float4 *>(a + i); };
  for (size_t g = thread; 4 * g < nx; g += threads) {
    bool first = g == 0, last = 4 * g + 4 == nx;
    size_t i = (r0 - 1) * nx + 4 * g;
    float4 north = load(i);
    i += nx;
    float4 here = load(i);
    size_t r = r0;
    for (; r + 4 <= r1; r += 4) {
      float4 s0 = load(i + nx), s1 = load(i + 2 * nx), s2 = load(i + 3 * nx), s3 = load(i + 4 * nx);
      row4(a, b, i, first, last, here, north, s0, &norm);
      row4(a, b, i + nx, first, last, s0, here, s1, &norm);
      row4(a, b, i + 2 * nx, first, last, s1, s0, s2, &norm);
      row4(a, b, i + 3 * nx, first, last, s2, s1, s3, &norm);
      north = s2; here = s3;
      i += 4 * nx;
    }
    for (; r < r1; ++r) {
      float4 south = load(i + nx);
      row4(a, b, i, first, last, here, north, south, &norm);
      north = here; here = south;
      i += nx;
    }
  }
  return norm;
}

__device__ __forceinline__ float sweep(const float *__restrict__ a,
                                       float *__restrict__ b, size_t nx,
                                       size_t r0, size_t r1, size_t thread,
                                       size_t threads) {
  if (nx % 4 == 0 && ((uintptr_t)a | (uintptr_t)b) % 16 == 0)
    return sweep_by4(a, b, nx, r0, r1, thread, threads);
  float norm = 0.0f;
  for (size_t ix = 1 + thread; ix + 1 < nx; ix += threads) {
    size_t i = (r0 - 1) * nx + ix;
    float north = a[i];
    i += nx;
    float here = a[i];
    size_t r = r0;
    for (; r + 4 <= r1; r += 4) {
      float s0 = a[i + nx], s1 = a[i + 2 * nx], s2 = a[i + 3 * nx], s3 = a[i + 4 * nx];
      float v0 = point(a, i, s0, north), v1 = point(a, i + nx, s1, here);
      float v2 = point(a, i + 2 * nx, s2, s0), v3 = point(a, i + 3 * nx, s3, s1);
      b[i] = v0; b[i + nx] = v1; b[i + 2 * nx] = v2; b[i + 3 * nx] = v3;
      float c0 = v0 - here, c1 = v1 - s0, c2 = v2 - s1, c3 = v3 - s2;
      norm += c0 * c0; norm += c1 * c1; norm += c2 * c2; norm += c3 * c3;
      north = s2; here = s3;
      i += 4 * nx;
    }
    for (; r < r1; ++r) {
      float south = a[i + nx];
      float value = point(a, i, south, north);
      b[i] = value;
      float change = value - here;
      norm += change * change;
      north = here; here = south;
      i += nx;
    }
  }
  return norm;
}

__global__ void jacobi_step(const float *a, float *b, unsigned nx,
                            unsigned first, unsigned end, float *partials,
                            unsigned slot) {
  __shared__ float scratch[1024];
  unsigned t = threadIdx.x, threads = blockDim.x, lo, hi;
  split(end - first, gridDim.x, blockIdx.x, &lo, &hi);
  scratch[t] = sweep(a, b, nx, first + lo, first + hi, t, threads);
  for (unsigned half = threads / 2; half > 0; half /= 2) {
    __syncthreads();
    if (t < half) scratch[t] += scratch[t + half];
  }
  if (t == 0) partials[slot + blockIdx.x] = scratch[0];
}

__global__ void clock_stamp(unsigned long long *out, unsigned at) {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  out[at] = now;
}

int main(int argc, char **argv) {
  unsigned nx = 4096, ny = 4096, iters = 1000, threads = 512, blocks = 0;
  bool csv = false;
  for (int i = 1; i < argc; ++i) {
    auto value = [&](const char *name) -> unsigned {
      if (i + 1 >= argc) { fprintf(stderr, "jacobi_single: %s needs a value\n", name); exit(2); }
      return (unsigned)strtoul(argv[++i], nullptr, 10);
    };
    if (!strcmp(argv[i], "--size")) nx = ny = value("--size");
    else if (!strcmp(argv[i], "--iters")) iters = value("--iters");
    else if (!strcmp(argv[i], "--threads")) threads = value("--threads");
    else if (!strcmp(argv[i], "--ranks")) blocks = value("--ranks");
    else if (!strcmp(argv[i], "--csv")) csv = true;
    else { fprintf(stderr, "jacobi_single: unknown option %s\n", argv[i]); return 2; }
  }
  if (nx < 3 || ny < 3 || threads < 32 || threads > 1024 || (threads & (threads - 1))) {
    fprintf(stderr, "jacobi_single: bad size or threads\n");
    return 2;
  }
  int device = 0, sms = 0, per_sm = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, jacobi_step, threads, 0));
  if (blocks == 0) blocks = (unsigned)(sms * per_sm);
  unsigned rows = ny - 2;
  if (blocks > rows) blocks = rows;
  size_t n = (size_t)nx * ny;
  std::vector<float> init(n, 0.0f);
  for (unsigned r = 0; r < ny; ++r) {
    float y0 = (float)sin(2.0 * M_PI * r / (ny - 1));
    init[(size_t)r * nx] = y0;
    init[(size_t)r * nx + nx - 1] = y0;
  }
  float *a, *b, *partials;
  unsigned long long *stamps;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMalloc(&partials, blocks * sizeof(float)));
  CHECK(cudaMalloc(&stamps, 2 * sizeof(unsigned long long)));
  CHECK(cudaMemcpy(a, init.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, init.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::vector<float> host_partials(blocks);
  float norm = 0.0f;
  clock_stamp<<<1, 1, 0, s>>>(stamps, 0);
  for (unsigned k = 0; k < iters; ++k) {
    jacobi_step<<<blocks, threads, 0, s>>>(a, b, nx, 1, rows + 1, partials, 0);
    CHECK(cudaGetLastError());
    // Periodic in y: top halo <- last row, bottom halo <- first row.
    CHECK(cudaMemcpyAsync(b, b + (size_t)rows * nx, nx * sizeof(float), cudaMemcpyDeviceToDevice, s));
    CHECK(cudaMemcpyAsync(b + (size_t)(rows + 1) * nx, b + nx, nx * sizeof(float), cudaMemcpyDeviceToDevice, s));
    CHECK(cudaMemcpyAsync(host_partials.data(), partials, blocks * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    double sum = 0.0;
    for (float p : host_partials) sum += p;
    norm = (float)sum;
    float *t = a; a = b; b = t;
  }
  clock_stamp<<<1, 1, 0, s>>>(stamps, 1);
  unsigned long long t[2];
  CHECK(cudaMemcpyAsync(t, stamps, sizeof t, cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  double seconds = (t[1] - t[0]) * 1e-9;
  if (csv) {
    printf("program,backend,processes,units,threads,nx,ny,iters,seconds,norm,check\n");
    printf("jacobi_single (nvcc),gpu,1,%u,%u,%u,%u,%u,%.6f,%e,not checked\n", blocks, threads, nx, ny, iters, seconds, sqrt((double)norm));
  } else {
    printf("jacobi_single (nvcc): %u x %u grid, %u iterations on 1 process(es) x %u blocks of %u threads (gpu): %.4f s, %.3f ms per iteration, norm %e\n",
           nx, ny, iters, blocks, threads, seconds, 1e3 * seconds / iters, sqrt((double)norm));
  }
  return 0;
}
