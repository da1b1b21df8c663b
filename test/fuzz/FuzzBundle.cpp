//===- FuzzBundle.cpp - libFuzzer target: reading and loading bundles -----===//
//
// The input is a bundle file. It is read twice: as it is (the header, the
// manifest hash and the padding checks), and with the manifest hash
// corrected, so that mutations of the manifest and the object table get past
// the hash to the JSON reader, the validator and the kernel setup of
// a module on the host (expressions compiled, code selected for the host). No
// object is ever loaded: a bundle is code, trusted like a shared library.
//
// A bundle that reads must write back to bytes that read again to the same
// bundle: writeBundle(readBundle(writeBundle(b))) == writeBundle(b).
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace {

void checkRoundTrip(const tuna::Bundle &bundle) {
  std::string written = tuna::writeBundle(bundle);
  std::string again = tuna::writeBundle(tuna::readBundle(written, "rewritten"));
  if (written != again)
    tuna::fuzz::finding("fuzz-bundle", "a bundle changed when written back");
}

void readAndLoad(std::string_view bytes) {
  tuna::Bundle bundle;
  try {
    bundle = tuna::readBundle(bytes, "fuzz");
  } catch (const tuna::Error &) {
    return;
  }
  checkRoundTrip(bundle);
  tuna::fuzz::setUpOnHost(std::move(bundle));
}

void storeLE(std::string &bytes, size_t at, uint64_t value, int width) {
  for (int i = 0; i < width; ++i)
    bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

uint64_t loadLE(std::string_view bytes, size_t at, int width) {
  uint64_t value = 0;
  for (int i = 0; i < width; ++i)
    value |= uint64_t(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return value;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  readAndLoad(bytes);

  // The header is 24 bytes: magic, version, manifest size, manifest hash.
  constexpr size_t kHeaderSize = 24;
  if (size < kHeaderSize)
    return 0;
  uint64_t manifestSize = loadLE(bytes, 12, 4);
  if (manifestSize > size - kHeaderSize)
    return 0;
  std::string fixed(bytes);
  storeLE(fixed, 16,
          tuna::fnv1a64(bytes.substr(kHeaderSize, manifestSize)), 8);
  if (fixed != bytes)
    readAndLoad(fixed);
  return 0;
}
