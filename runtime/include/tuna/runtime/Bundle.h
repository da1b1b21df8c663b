//===- Bundle.h - Reading and writing bundle files -------------*- C++ -*-===//
//
// The on-disk form of a Bundle (Manifest.h): magic bytes, a format version, a
// JSON manifest and the object blobs, each with a content hash. The layout is
// documented in docs/bundle-format.md. Readers never trust the bytes: a
// truncated, damaged, foreign or newer file is reported as a tuna::Error
// (ErrorCode::BadBundle) naming the origin and the problem.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_BUNDLE_H
#define TUNA_RUNTIME_BUNDLE_H

#include "tuna/runtime/Manifest.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tuna {

/// The newest bundle format version this runtime reads. Version 2 adds
/// tensor maps (Kernel::tensorMaps, Variant::tensorMaps); see
/// bundleFormatVersion.
constexpr uint32_t kBundleFormatVersion = 2;

/// The format version writeBundle gives `bundle`: 2 when a kernel has tensor
/// maps (a reader that ignored them would launch a variant without its
/// hidden parameters), 1 otherwise, so that older runtimes read it.
uint32_t bundleFormatVersion(const Bundle &bundle);

/// 64-bit FNV-1a of `bytes`: the content hash of manifests and objects.
uint64_t fnv1a64(std::string_view bytes);

/// Checks the meaning of a bundle: argument and key indices in range, memref
/// dimensions below the rank, default variants and object indices valid,
/// expressions well-formed, configurations in parameter order, limits of
/// the runtime respected. Throws tuna::Error naming `origin` and the kernel,
/// variant and field at fault.
void validateBundle(const Bundle &bundle, std::string_view origin);

/// Serializes a (valid) bundle.
std::string writeBundle(const Bundle &bundle);

/// validateBundle (naming `origin`) and writeBundle for callers built
/// without exceptions, such as the compiler: returns true with the bytes in
/// `bytes`, or false with the message either would have thrown in `error`.
/// Never throws: this is the one place where the runtime's exceptions are
/// turned into values (docs/architecture.md, "Error model").
bool tryWriteBundle(const Bundle &bundle, std::string_view origin,
                    std::string &bytes, std::string &error) noexcept;

/// Parses and validates a bundle; `origin` (a path, "<embedded>") is used in
/// messages.
Bundle readBundle(std::string_view bytes, std::string_view origin);

/// Reads the file at `path` and parses it.
Bundle readBundleFile(const std::string &path);

/// Writes writeBundle(bundle) to `path` (through a temporary file renamed
/// into place).
void writeBundleFile(const Bundle &bundle, const std::string &path);

} // namespace tuna

#endif // TUNA_RUNTIME_BUNDLE_H
