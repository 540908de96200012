// NVSHMEM started from MPI with the unique-id bootstrap, one GPU per
// process (the NVSHMEM baselines run under mpirun).
#pragma once
#include <mpi.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include "common.cuh"

// MPI_Init, then NVSHMEM over all processes, each on GPU `rank`.
inline void init_nvshmem_over_mpi(int* argc, char*** argv, int* rank, int* size) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  CHECK(cudaSetDevice(*rank));
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  if (*rank == 0) nvshmemx_get_uniqueid(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  nvshmemx_set_attr_uniqueid_args(*rank, *size, &id, &attr);
  nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
}
