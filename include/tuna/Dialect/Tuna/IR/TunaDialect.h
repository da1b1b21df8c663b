//===- TunaDialect.h - The tuna dialect -------------------------*- C++ -*-===//
#ifndef TUNA_DIALECT_TUNA_IR_TUNADIALECT_H
#define TUNA_DIALECT_TUNA_IR_TUNADIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tuna/Dialect/Tuna/IR/TunaOpsDialect.h.inc"

#include "tuna/Dialect/Tuna/IR/TunaEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tuna/Dialect/Tuna/IR/TunaAttrs.h.inc"

#define GET_OP_CLASSES
#include "tuna/Dialect/Tuna/IR/TunaOps.h.inc"

#endif // TUNA_DIALECT_TUNA_IR_TUNADIALECT_H
