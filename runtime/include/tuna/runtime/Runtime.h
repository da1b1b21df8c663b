//===- Runtime.h - Everything an application needs -------------*- C++ -*-===//
#ifndef TUNA_RUNTIME_RUNTIME_H
#define TUNA_RUNTIME_RUNTIME_H

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Device.h"
#include "tuna/runtime/Error.h"
#include "tuna/runtime/Kernel.h"
#include "tuna/runtime/MemRef.h"
#include "tuna/runtime/Module.h"
#include "tuna/runtime/Options.h"
#include "tuna/runtime/Step.h"
#include "tuna/runtime/Tuning.h"

#endif // TUNA_RUNTIME_RUNTIME_H
