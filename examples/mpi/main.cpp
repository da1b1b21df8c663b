//===- main.cpp - The ranks of an MPI job launch the same variants --------===//
//
// kernels.h comes from `tuna-compile scale.mlir --target=host --header
// kernels.h`, as in examples/aot. After MPI_Init, tuna::mpi::enable() makes
// every module loaded afterwards agree with the other ranks on each new
// signature (docs/runtime-api.md, "Several ranks"): every rank tunes the
// host scale kernel on its first call of each shape, and all launch the
// same variant. Each rank checks y = s * x; rank 0 checks that every rank
// launched the variant it did. Exits 1 on any error or disagreement.
//   mpirun -np 2 mpi_app
//
//===----------------------------------------------------------------------===//

#include "kernels.h"

#include "tuna/mpi/Mpi.h"

#include <cstdio>
#include <limits>
#include <vector>

namespace {
/// Whether every rank chose `variant`: gathered at rank 0, its verdict
/// broadcast.
bool allChose(int variant, int rank, int size) {
  std::vector<int> all(size);
  MPI_Gather(&variant, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int same = 1;
  if (rank == 0)
    for (int other : all)
      same &= other == variant;
  MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return same;
}

int run(int rank, int size) {
  tuna::mpi::enable(); // The one line: every rank decides together.
  const tuna::TunedKernel &kernel =
      kernels::module(tuna::Device::host()).kernel("scale_host");
  for (int64_t n : {1000, 65537}) {
    std::vector<float> x(n), y(n, std::numeric_limits<float>::quiet_NaN());
    for (int64_t i = 0; i < n; ++i)
      x[i] = static_cast<float>(i % 97) - 48.0f;
    const float s = 1.5f;
    kernels::scale_host(nullptr, tuna::memref(x.data(), {n}),
                        tuna::memref(y.data(), {n}), s, n);
    for (int64_t i = 0; i < n; ++i)
      if (!(y[i] == s * x[i])) {
        std::fprintf(stderr, "mpi_app: rank %d: n=%lld: y[%lld] = %g\n", rank,
                     (long long)n, (long long)i, y[i]);
        return 1;
      }
    tuna::TuningReport report = kernel.reports().back();
    if (report.ranks != size || !allChose(report.chosen, rank, size)) {
      std::fprintf(stderr, "mpi_app: rank %d: n=%lld: the ranks disagree\n",
                   rank, (long long)n);
      return 1;
    }
    if (rank == 0)
      std::printf("mpi_app: n=%lld: all %d ranks launch %s\n", (long long)n,
                  size, report.chosenName.c_str());
  }
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status;
  try {
    status = run(rank, size);
  } catch (const tuna::Error &error) {
    std::fprintf(stderr, "mpi_app: rank %d: %s\n", rank, error.what());
    status = 1;
  }
  // Every rank ends together: one that failed makes all fail.
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
