//===- SearchResume.h - The measurements a search persists ------*- C++ -*-===//
//
// The resume file of a search (docs/search.md), JSON Lines: a header, then
// one line per measured configuration, appended after each batch:
//
//   {"format": "tuna-search", "version": 1, "kernel": "matmul",
//    "source_hash": "f228...", "device": "NVIDIA H100",
//    "signature": [4096, 4096], "parameters": ["bm", "bn"]}
//   {"config": {"bm": 64, "bn": 128}, "ms": 0.0123, "min_ms": 0.0121,
//    "max_ms": 0.0130, "samples": 5}
//   {"config": {"bm": 256, "bn": 256}, "failure": "too much shared memory"}
//
// (each record on one line). A last line without its newline is what an
// interrupted append left: it is ignored.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_RUNTIME_LIB_SEARCHRESUME_H
#define TUNA_RUNTIME_LIB_SEARCHRESUME_H

#include "tuna/runtime/Search.h"

#include <utility>

namespace tuna::search {

/// Measurements by configuration id, in file order.
using Measured = std::vector<std::pair<size_t, Measurement>>;

/// The measurements of `path` (none when it does not exist). Throws
/// tuna::Error naming the file when it cannot be read, is not a resume file,
/// was written for another key or parameters, or names a configuration
/// outside `space`.
Measured readResumeFile(const std::string &path, const ResumeKey &key,
                        const Space &space);

/// Appends `measured` to `path`, creating it with its header (atomically)
/// when it does not exist. Throws tuna::Error naming the file.
void appendResumeFile(const std::string &path, const ResumeKey &key,
                      const Space &space, const Measured &measured);

} // namespace tuna::search

#endif // TUNA_RUNTIME_LIB_SEARCHRESUME_H
