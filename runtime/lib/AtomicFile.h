//===- AtomicFile.h - Replacing a file so readers never see half --*- C++ -*-//
#ifndef TUNA_RUNTIME_LIB_ATOMICFILE_H
#define TUNA_RUNTIME_LIB_ATOMICFILE_H

#include <cerrno>
#include <cstddef>
#include <string>

namespace tuna {

/// "cannot <what> <path>: <strerror(errno)>".
std::string systemError(const std::string &what, const std::string &path);

/// Calls `writeSome(done)`, a write(2)-like call (write, send, pwrite) of
/// the bytes from `done` on that returns how many it wrote, until all `size`
/// bytes are written, again when a signal interrupts it; false when a call
/// fails or writes nothing (errno says why).
template <typename WriteSome>
bool writeFully(size_t size, WriteSome writeSome) {
  for (size_t done = 0; done < size;) {
    auto n = writeSome(done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

/// Writes all of `bytes` to `fd` (writeFully); false on failure (errno says
/// why).
bool writeAll(int fd, const std::string &bytes);

/// Writes `text` to a temporary file beside `path`, fsyncs it and renames it
/// over `path`. Throws tuna::Error naming the file; `path` is then unchanged.
void writeFileAtomically(const std::string &path, const std::string &text);

/// Appends `text` to `path` in one write (no fsync: a crash may lose it, or
/// leave a prefix of it). Throws tuna::Error naming the file.
void appendToFile(const std::string &path, const std::string &text);

} // namespace tuna

#endif // TUNA_RUNTIME_LIB_ATOMICFILE_H
