//===- AtomicFile.cpp - Replacing a file so readers never see half --------===//

#include "AtomicFile.h"

#include "tuna/runtime/Error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace tuna {

std::string systemError(const std::string &what, const std::string &path) {
  return "cannot " + what + " " + path + ": " + std::strerror(errno);
}

bool writeAll(int fd, const std::string &bytes) {
  return writeFully(bytes.size(), [&](size_t done) {
    return ::write(fd, bytes.data() + done, bytes.size() - done);
  });
}

void writeFileAtomically(const std::string &path, const std::string &text) {
  std::string temp = path + ".tmp-" + std::to_string(::getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error(ErrorCode::InvalidArgument, systemError("create", temp));
  bool ok = writeAll(fd, text) && ::fsync(fd) == 0;
  std::string failure = ok ? "" : systemError("write", temp);
  ::close(fd);
  if (ok && std::rename(temp.c_str(), path.c_str()) != 0)
    failure = systemError("replace", path);
  if (!failure.empty()) {
    std::remove(temp.c_str());
    throw Error(ErrorCode::InvalidArgument, failure);
  }
}

void appendToFile(const std::string &path, const std::string &text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0)
    throw Error(ErrorCode::InvalidArgument, systemError("open", path));
  bool ok = writeAll(fd, text);
  std::string failure = ok ? "" : systemError("append to", path);
  ::close(fd);
  if (!ok)
    throw Error(ErrorCode::InvalidArgument, failure);
}

} // namespace tuna
