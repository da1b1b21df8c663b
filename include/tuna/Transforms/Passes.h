//===- Passes.h - Tuna passes -----------------------------------*- C++ -*-===//
#ifndef TUNA_TRANSFORMS_PASSES_H
#define TUNA_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "tuna/Dialect/Tuna/IR/TunaDialect.h"

namespace mlir::tuna {

#define GEN_PASS_DECL
#include "tuna/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tuna/Transforms/Passes.h.inc"

} // namespace mlir::tuna

#endif // TUNA_TRANSFORMS_PASSES_H
