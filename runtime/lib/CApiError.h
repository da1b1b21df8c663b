//===- CApiError.h - The C API's last error, for C entry points -*- C++ -*-===//
//
// tunaLastError() returns the message of the calling thread's last failure
// of any C entry point, also those of libraries beside the runtime (tuna_mpi's
// tunaMpiEnable), which set it through this function.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_CAPIERROR_H
#define TUNA_RUNTIME_LIB_CAPIERROR_H

#include "tuna/runtime/tuna.h"

#include <string>

namespace tuna {

/// Makes `message` the calling thread's tunaLastError(); returns `status`.
TunaStatus failCApi(TunaStatus status, std::string message);

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_CAPIERROR_H
