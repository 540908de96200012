// NCCL started from MPI, one GPU per process (the NCCL baselines run
// under mpirun): the unique id from process 0, one communicator over all.
#pragma once
#include <mpi.h>
#include <nccl.h>
#include "common.cuh"

#define NCCLCHECK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); exit(1); } } while (0)

// A communicator of every process, this one as `rank` of `size`.
inline ncclComm_t nccl_over_mpi(int rank, int size) {
  ncclUniqueId id;
  if (rank == 0) NCCLCHECK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCLCHECK(ncclCommInitRank(&comm, size, id, rank));
  return comm;
}
