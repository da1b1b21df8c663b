//===- FaultyKernels.cpp - Host "variants" that crash or hang -------------===//
//
// Variants with the ABI of ScaleKernels.cpp's axpy that fault or never
// return, for the isolated tuning tests: only a worker process may run them.
//
//===----------------------------------------------------------------------===//

#include <cstdlib>

extern "C" {
void axpy_trap(void **) { __builtin_trap(); }

void axpy_abort(void **) { std::abort(); }

void axpy_null(void **) {
  // Volatile both ways: the compiler neither knows the address is null nor
  // drops the store.
  volatile float *volatile target = nullptr;
  *target = 1;
}

void axpy_spin(void **) {
  volatile bool forever = true;
  while (forever) {
  }
}
}
