//===- WriteAxpyBundle.cpp - A host bundle whose pick is not in doubt -----===//
//
//   tuna-mpi-write-bundle OUT.tuna [--source-hash HASH]
//
// axpy (test/runtime/TestBundles.h) with the variants axpy_work64 (the
// default), axpy_work0 and axpy_wrong: with --check the wrong one is
// rejected, and axpy_work64 does 64 dependent volatile additions per
// element where axpy_work0 does none, so axpy_work0 wins every shape by far
// more than a loaded machine's noise; tuna-tune-ranks.sh compares the
// picks of one and several ranks on it. --source-hash gives the kernel
// another source hash (a bundle of another source, for one rank).
//
//===----------------------------------------------------------------------===//

#include "TestBundles.h"

#include "tuna/runtime/Bundle.h"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  if (argc != 2 && !(argc == 4 && !std::strcmp(argv[2], "--source-hash"))) {
    std::fprintf(stderr, "usage: tuna-mpi-write-bundle OUT.tuna "
                         "[--source-hash HASH]\n");
    return 2;
  }
  tuna::Bundle bundle = tuna::test::axpyBundle();
  std::vector<tuna::Variant> &variants = bundle.kernels[0].variants;
  variants = {variants[2], variants[1], variants[3]};
  if (argc == 4)
    bundle.kernels[0].sourceHash = argv[3];
  tuna::writeBundleFile(bundle, argv[1]);
  return 0;
}
