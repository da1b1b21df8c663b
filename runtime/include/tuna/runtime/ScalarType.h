//===- ScalarType.h - Names and sizes of scalar types ----------*- C++ -*-===//
#ifndef TUNA_RUNTIME_SCALARTYPE_H
#define TUNA_RUNTIME_SCALARTYPE_H

#include "tuna/runtime/Manifest.h"

#include <cstddef>
#include <optional>
#include <string_view>

namespace tuna {

/// The MLIR spelling: "i1", "i32", "index", "f16", "bf16", ...
const char *scalarTypeName(ScalarType type);

/// The inverse of scalarTypeName.
std::optional<ScalarType> parseScalarType(std::string_view name);

/// Bytes per element in memory (i1 is one byte, index eight).
size_t scalarTypeSize(ScalarType type);

inline bool isIntegerType(ScalarType type) { return type <= ScalarType::Index; }

inline bool isFloatType(ScalarType type) { return !isIntegerType(type); }

} // namespace tuna

#endif // TUNA_RUNTIME_SCALARTYPE_H
