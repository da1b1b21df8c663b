//===- ManifestJson.h - The JSON manifest of a bundle file ------*- C++ -*-===//
//
// Internal to Bundle.cpp: converts a Bundle (minus the object bytes) to the
// JSON manifest and back. Blob placement travels beside it.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_MANIFESTJSON_H
#define TUNA_RUNTIME_LIB_MANIFESTJSON_H

#include "tuna/runtime/Manifest.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tuna {

/// Where one object's bytes are, relative to the start of the data section.
struct BlobPlacement {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t hash = 0; ///< fnv1a64 of the bytes.
};

std::string manifestToJson(const Bundle &bundle,
                           const std::vector<BlobPlacement> &blobs);

/// Fills `bundle` (objects without their data) and `blobs` from `json`.
/// Throws tuna::Error naming `origin` and the offending JSON path.
void manifestFromJson(std::string_view json, std::string_view origin,
                      Bundle &bundle, std::vector<BlobPlacement> &blobs);

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_MANIFESTJSON_H
