//===- BitsAndWritesTest.cpp - The runtime's bit casts and write loop -----===//
//
// runtime/lib/BitCast.h (a value's bits as another type, unaligned loads)
// and writeFully in runtime/lib/AtomicFile.h (the one loop behind writing a
// file, a socket line and the worker's shared memory): what they promise,
// with a scripted write call standing in for write(2).
//
//===----------------------------------------------------------------------===//

#include "AtomicFile.h"
#include "BitCast.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <sys/types.h>
#include <unistd.h>

using namespace tuna;

namespace {

TEST(BitCast, GivesAValuesBitsAndBack) {
  EXPECT_EQ(bitCast<uint32_t>(1.0f), 0x3f800000u);
  EXPECT_EQ(bitCast<float>(uint32_t{0xc0000000u}), -2.0f);
  EXPECT_EQ(bitCast<uint64_t>(1.0), 0x3ff0000000000000ull);
  double value = -0.1;
  EXPECT_EQ(bitCast<double>(bitCast<uint64_t>(value)), value);
}

TEST(BitCast, LoadsAtAnyAlignment) {
  char bytes[16] = {};
  uint64_t bits = 0x0123456789abcdefull;
  for (size_t offset = 0; offset < 8; ++offset) {
    std::copy_n(reinterpret_cast<const char *>(&bits), sizeof(bits),
                bytes + offset);
    EXPECT_EQ(loadUnaligned<uint64_t>(bytes + offset), bits) << offset;
  }
}

/// A write(2) stand-in: each call takes at most `chunk` bytes of `text`
/// from `done` on, after first answering the scripted results.
struct ScriptedWrites {
  const std::string &text;
  size_t chunk;
  std::vector<std::pair<ssize_t, int>> script; ///< result, errno
  std::string written;
  int calls = 0;

  ssize_t operator()(size_t done) {
    ++calls;
    if (!script.empty()) {
      auto [result, error] = script.front();
      script.erase(script.begin());
      errno = error;
      return result;
    }
    EXPECT_EQ(done, written.size());
    std::string part = text.substr(done, chunk);
    written += part;
    return static_cast<ssize_t>(part.size());
  }
};

TEST(WriteFully, WritesEveryByteThroughShortWritesAndSignals) {
  std::string text = "one line of a worker's request\n";
  ScriptedWrites writes{text, 4, {{-1, EINTR}, {-1, EINTR}}, {}};
  EXPECT_TRUE(writeFully(text.size(), std::ref(writes)));
  EXPECT_EQ(writes.written, text);
  EXPECT_EQ(writes.calls, 2 + static_cast<int>((text.size() + 3) / 4));
}

TEST(WriteFully, StopsAtAFailureOrAWriteOfNothing) {
  std::string text = "bytes";
  ScriptedWrites failing{text, 8, {{-1, EIO}}, {}};
  EXPECT_FALSE(writeFully(text.size(), std::ref(failing)));
  EXPECT_EQ(errno, EIO);
  EXPECT_EQ(failing.calls, 1);

  ScriptedWrites nothing{text, 8, {{0, 0}}, {}};
  EXPECT_FALSE(writeFully(text.size(), std::ref(nothing)));
  EXPECT_EQ(nothing.calls, 1);

  ScriptedWrites empty{text, 8, {{-1, EIO}}, {}};
  EXPECT_TRUE(writeFully(0, std::ref(empty)));
  EXPECT_EQ(empty.calls, 0);
}

TEST(WriteFully, WriteAllPutsEveryByteIntoADescriptor) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::string text(3000, 'x');
  text += "end";
  EXPECT_TRUE(writeAll(fds[1], text));
  ::close(fds[1]);
  std::string read;
  char buffer[512];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof(buffer))) > 0;)
    read.append(buffer, static_cast<size_t>(n));
  ::close(fds[0]);
  EXPECT_EQ(read, text);
}

} // namespace
