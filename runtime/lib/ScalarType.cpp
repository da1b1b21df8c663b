//===- ScalarType.cpp - Names and sizes of scalar types -------------------===//

#include "tuna/runtime/ScalarType.h"

namespace tuna {

namespace {
struct TypeInfo {
  ScalarType type;
  const char *name;
  size_t size;
};

constexpr TypeInfo kTypes[] = {
    {ScalarType::I1, "i1", 1},   {ScalarType::I8, "i8", 1},
    {ScalarType::I16, "i16", 2}, {ScalarType::I32, "i32", 4},
    {ScalarType::I64, "i64", 8}, {ScalarType::Index, "index", 8},
    {ScalarType::F16, "f16", 2}, {ScalarType::BF16, "bf16", 2},
    {ScalarType::F32, "f32", 4}, {ScalarType::F64, "f64", 8},
};
} // namespace

const char *scalarTypeName(ScalarType type) {
  return kTypes[static_cast<size_t>(type)].name;
}

std::optional<ScalarType> parseScalarType(std::string_view name) {
  for (const TypeInfo &info : kTypes)
    if (name == info.name)
      return info.type;
  return std::nullopt;
}

size_t scalarTypeSize(ScalarType type) {
  return kTypes[static_cast<size_t>(type)].size;
}

} // namespace tuna
