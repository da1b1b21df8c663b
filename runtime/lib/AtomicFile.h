//===- AtomicFile.h - Replacing a file so readers never see half --*- C++ -*-//
#ifndef TUNA_RUNTIME_LIB_ATOMICFILE_H
#define TUNA_RUNTIME_LIB_ATOMICFILE_H

#include <string>

namespace tuna {

/// "cannot <what> <path>: <strerror(errno)>".
std::string systemError(const std::string &what, const std::string &path);

/// Writes all of `bytes` to `fd`, again after a signal interrupts it; false
/// on failure (errno says why).
bool writeAll(int fd, const std::string &bytes);

/// Writes `text` to a temporary file beside `path`, fsyncs it and renames it
/// over `path`. Throws tuna::Error naming the file; `path` is then unchanged.
void writeFileAtomically(const std::string &path, const std::string &text);

/// Appends `text` to `path` in one write (no fsync: a crash may lose it, or
/// leave a prefix of it). Throws tuna::Error naming the file.
void appendToFile(const std::string &path, const std::string &text);

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_ATOMICFILE_H
