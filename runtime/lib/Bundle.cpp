//===- Bundle.cpp - Reading and writing bundle files ----------------------===//
//
// Layout (all integers little-endian; see docs/bundle-format.md):
//
//   0   8  magic "TUNABNDL"
//   8   4  format version
//   12  4  manifest size M
//   16  8  fnv1a64 of the manifest
//   24  M  manifest (JSON)
//   ...    zero padding to a multiple of 16: the data section starts here
//          object blobs, in order, each at a multiple of 16 from the data
//          section, separated by zero padding; the file ends with the last.
//
//===----------------------------------------------------------------------===//

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Error.h"
#include "tuna/runtime/PhaseTimes.h"

#include "BundleParts.h"
#include "ManifestJson.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <thread>

namespace tuna {

namespace {
constexpr char kMagic[8] = {'T', 'U', 'N', 'A', 'B', 'N', 'D', 'L'};
constexpr size_t kHeaderSize = kBundleHeadSize;
constexpr uint64_t kAlignment = 16;

uint64_t alignUp(uint64_t value) {
  return (value + kAlignment - 1) / kAlignment * kAlignment;
}

void appendLE(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t readLE(std::string_view bytes, size_t at, int width) {
  uint64_t value = 0;
  for (int i = 0; i < width; ++i)
    value |= uint64_t(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return value;
}

[[noreturn]] void fail(std::string_view origin, const std::string &problem) {
  throw Error(ErrorCode::BadBundle, std::string(origin) + ": " + problem);
}

bool allZero(std::string_view bytes) {
  return bytes.find_first_not_of('\0') == std::string_view::npos;
}

std::string describe(const Object &object, size_t index) {
  return "object " + std::to_string(index) + " (" + object.target + " " +
         object.format + ")";
}
} // namespace

uint64_t fnv1a64(std::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

uint32_t bundleFormatVersion(const Bundle &bundle) {
  for (const Kernel &kernel : bundle.kernels)
    if (!kernel.tensorMaps.empty())
      return 2;
  return 1;
}

namespace {
/// Runs `work(i)` for every i < count, on up to the machine's cores (each
/// thread a contiguous range; small counts on this thread alone).
template <typename Work> void forEachInParallel(size_t count, Work work) {
  size_t threads = std::min<size_t>(
      std::max(1u, std::thread::hardware_concurrency()), count / 8 + 1);
  auto range = [&](size_t t) {
    for (size_t i = count * t / threads; i < count * (t + 1) / threads; ++i)
      work(i);
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t)
    helpers.emplace_back(range, t);
  range(0);
  for (std::thread &helper : helpers)
    helper.join();
}

/// The header and the manifest of `bundle`, padded to the data section,
/// whose objects `blobs` places.
std::string writeHead(const Bundle &bundle, std::vector<BlobPlacement> &blobs,
                      uint64_t &dataBytes) {
  validateBundle(bundle, "writeBundle");
  uint64_t offset = 0;
  for (const Object &object : bundle.objects) {
    offset = alignUp(offset);
    blobs.push_back({offset, object.data.size(), 0});
    offset += object.data.size();
  }
  // Hashing is most of the work for a large bundle (readBundle's too).
  forEachInParallel(blobs.size(), [&](size_t i) {
    blobs[i].hash = fnv1a64(bundle.objects[i].data);
  });
  dataBytes = offset;
  std::string manifest = manifestToJson(bundle, blobs);
  if (manifest.size() > UINT32_MAX)
    throw Error(ErrorCode::InvalidArgument,
                "writeBundle: the manifest exceeds 4 GiB");

  std::string out(kMagic, sizeof(kMagic));
  appendLE(out, bundleFormatVersion(bundle), 4);
  appendLE(out, manifest.size(), 4);
  appendLE(out, fnv1a64(manifest), 8);
  out += manifest;
  out.resize(alignUp(out.size()), '\0');
  return out;
}

/// Checks the header and the manifest of `bytes` and parses the manifest;
/// returns where the data section starts.
uint64_t readHead(std::string_view bytes, std::string_view origin,
                  Bundle &bundle, std::vector<BlobPlacement> &blobs) {
  size_t magicSeen = std::min(bytes.size(), sizeof(kMagic));
  if (bytes.substr(0, magicSeen) != std::string_view(kMagic, magicSeen))
    fail(origin,
         "not a Tuna bundle (the file does not start with \"TUNABNDL\")");
  if (bytes.size() < kHeaderSize)
    fail(origin, "truncated: " + std::to_string(bytes.size()) +
                     " bytes, shorter than the " + std::to_string(kHeaderSize) +
                     "-byte header");
  uint64_t version = readLE(bytes, 8, 4);
  if (version > kBundleFormatVersion)
    fail(origin, "written by a newer Tuna (bundle format version " +
                     std::to_string(version) + "; this runtime reads up to " +
                     std::to_string(kBundleFormatVersion) + ")");
  if (version == 0)
    fail(origin, "damaged: bundle format version 0 does not exist");
  uint64_t manifestSize = readLE(bytes, 12, 4);
  uint64_t manifestHash = readLE(bytes, 16, 8);
  uint64_t dataStart = alignUp(kHeaderSize + manifestSize);
  if (bytes.size() < dataStart)
    fail(origin, "truncated: " + std::to_string(bytes.size()) +
                     " bytes, but the manifest and its padding end at " +
                     std::to_string(dataStart));
  std::string_view manifest = bytes.substr(kHeaderSize, manifestSize);
  if (fnv1a64(manifest) != manifestHash)
    fail(origin, "damaged: the manifest does not match its content hash");
  if (!allZero(bytes.substr(kHeaderSize + manifestSize,
                            dataStart - kHeaderSize - manifestSize)))
    fail(origin, "damaged: non-zero padding after the manifest");
  manifestFromJson(manifest, origin, bundle, blobs);
  if (bundleFormatVersion(bundle) > version)
    fail(origin, "damaged: the manifest has tensor maps, which need bundle "
                 "format version 2, but the header says version " +
                     std::to_string(version));
  return dataStart;
}
} // namespace

std::string writeBundle(const Bundle &bundle) {
  std::vector<BlobPlacement> blobs;
  uint64_t dataBytes = 0;
  std::string out = writeHead(bundle, blobs, dataBytes);
  size_t dataStart = out.size();
  out.reserve(dataStart + dataBytes);
  for (size_t i = 0; i < bundle.objects.size(); ++i) {
    out.resize(dataStart + blobs[i].offset, '\0');
    out += bundle.objects[i].data;
  }
  return out;
}

std::string writeBundleManifest(const Bundle &bundle) {
  std::vector<BlobPlacement> blobs;
  uint64_t dataBytes = 0;
  return writeHead(bundle, blobs, dataBytes);
}

Bundle readBundleManifest(std::string_view bytes, std::string_view origin,
                          std::vector<BlobPlacement> &blobs) {
  TimedPhase phase("bundle parse");
  Bundle bundle;
  uint64_t dataStart = readHead(bytes, origin, bundle, blobs);
  if (bytes.size() != dataStart)
    fail(origin, "damaged: " + std::to_string(bytes.size() - dataStart) +
                     " bytes after a manifest that should stand alone");
  validateBundle(bundle, origin);
  return bundle;
}

Bundle readBundle(std::string_view bytes, std::string_view origin) {
  TimedPhase phase("bundle parse");
  Bundle bundle;
  std::vector<BlobPlacement> blobs;
  uint64_t dataStart = readHead(bytes, origin, bundle, blobs);

  std::string_view data = bytes.substr(dataStart);
  uint64_t expected = 0;
  for (size_t i = 0; i < blobs.size(); ++i) {
    const BlobPlacement &blob = blobs[i];
    std::string name = describe(bundle.objects[i], i);
    if (blob.offset != alignUp(expected))
      fail(origin, "damaged: " + name + " starts at data offset " +
                       std::to_string(blob.offset) + ", expected " +
                       std::to_string(alignUp(expected)));
    if (blob.offset > data.size() || blob.size > data.size() - blob.offset)
      fail(origin, "truncated: " + name + " needs data bytes [" +
                       std::to_string(blob.offset) + ", " +
                       std::to_string(blob.offset + blob.size) +
                       "), the file has " + std::to_string(data.size()));
    if (!allZero(data.substr(expected, blob.offset - expected)))
      fail(origin, "damaged: non-zero padding before " + name);
    expected = blob.offset + blob.size;
  }
  if (data.size() != expected)
    fail(origin, "damaged: " + std::to_string(data.size() - expected) +
                     " unexpected bytes after the last object");
  // Hashing and copying the objects is most of a large bundle's parse
  // (80 MB of cubins for a space of 1,000 matmuls): the objects are
  // independent, so it is spread over the cores.
  std::vector<char> damaged(blobs.size());
  forEachInParallel(blobs.size(), [&](size_t i) {
    std::string_view content = data.substr(blobs[i].offset, blobs[i].size);
    damaged[i] = fnv1a64(content) != blobs[i].hash;
    if (!damaged[i])
      bundle.objects[i].data.assign(content);
  });
  for (size_t i = 0; i < blobs.size(); ++i)
    if (damaged[i])
      fail(origin, "damaged: " + describe(bundle.objects[i], i) +
                       " does not match its content hash");
  validateBundle(bundle, origin);
  return bundle;
}

bool tryWriteBundle(const Bundle &bundle, std::string_view origin,
                    std::string &bytes, std::string &error) noexcept {
  try {
    validateBundle(bundle, origin);
    bytes = writeBundle(bundle);
    return true;
  } catch (const std::exception &e) {
    error = e.what();
    return false;
  }
}

std::string readBundleBytes(const std::string &path) {
  TimedPhase phase("bundle read");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in)
    throw Error(ErrorCode::NotFound, path + ": cannot open bundle file");
  // One read into a buffer of the file's size: a stream copy grows its
  // buffer step by step, which took most of the time on large bundles.
  std::streamoff size = in.tellg();
  std::string contents(size > 0 ? static_cast<size_t>(size) : 0, '\0');
  in.seekg(0);
  in.read(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (size < 0 || in.bad() || in.gcount() != size)
    throw Error(ErrorCode::NotFound, path + ": cannot read bundle file");
  return contents;
}

std::string_view bundleHead(std::string_view bytes) {
  return bytes.substr(0, alignUp(kHeaderSize + readLE(bytes, 12, 4)));
}

Bundle readBundleFile(const std::string &path) {
  return readBundle(readBundleBytes(path), path);
}

void writeBundleFile(const Bundle &bundle, const std::string &path) {
  std::string bytes = writeBundle(bundle);
  std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out)
      throw Error(ErrorCode::Backend, temporary + ": cannot write bundle file");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw Error(ErrorCode::Backend,
                path + ": cannot move " + temporary + " into place");
  }
}

} // namespace tuna
