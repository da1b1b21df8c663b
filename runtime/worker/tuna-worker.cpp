//===- tuna-worker.cpp - Times tuning candidates for another process ------===//
//
// Started by the runtime for isolated tuning (Options::isolate,
// TUNA_ISOLATE=1); not meant to be run by hand. See runtime/lib/Isolation.h.
//
//===----------------------------------------------------------------------===//

#include "Isolation.h"

int main() { return tuna::runTuningWorker(); }
