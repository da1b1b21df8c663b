//===- BundleParts.h - A bundle's manifest apart from its code --*- C++ -*-===//
//
// What isolated tuning (Isolation.cpp) sends a tuning worker: the bundle's
// header and manifest once, then each object when a request needs it,
// checked against the manifest's size and content hash.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_BUNDLEPARTS_H
#define TUNA_RUNTIME_LIB_BUNDLEPARTS_H

#include "ManifestJson.h"

namespace tuna {

/// The bytes of the file at `path`.
std::string readBundleBytes(const std::string &path);

/// The bytes of a bundle's header, before the manifest.
constexpr size_t kBundleHeadSize = 24;

/// The header and the manifest (with its padding) of the bundle `bytes`,
/// which start with a header (readBundle checks the rest).
std::string_view bundleHead(std::string_view bytes);

/// bundleHead(writeBundle(bundle)), without writing the objects.
std::string writeBundleManifest(const Bundle &bundle);

/// Parses a bundle's head alone (bundleHead, writeBundleManifest): the
/// objects have no data; `blobs` gets each one's size and content hash, to
/// check their bytes when they come.
Bundle readBundleManifest(std::string_view bytes, std::string_view origin,
                          std::vector<BlobPlacement> &blobs);

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_BUNDLEPARTS_H
