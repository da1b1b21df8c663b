//===- WriteSeeds.cpp - Seed inputs for the bundle and manifest fuzzers ---===//
//
// Usage: tuna-fuzz-write-seeds <dir>. Writes small bundles to <dir>/bundle
// and their manifests to <dir>/manifest: the test kernel of the runtime's
// unit tests and variations on it that use every field of the format (two
// targets, memref key dimensions, bins, launch maps, constraints). Object
// bytes are a few placeholder bytes: the fuzzers never load code, and short
// objects keep mutations on the manifest.
//
//===----------------------------------------------------------------------===//

#include "TestBundles.h"

#include "tuna/runtime/Bundle.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

using namespace tuna;
using test::constant;
using test::dim;
using test::op;

namespace {

Bundle smallAxpyBundle() {
  Bundle bundle = test::axpyBundle();
  bundle.objects[0].data = "\x7f" "ELF placeholder";
  return bundle;
}

/// Two objects (host and PTX), a memref dimension and a bucketed scalar in
/// the key, launch maps, shared memory and constraints over both.
Bundle everyFieldBundle() {
  Bundle bundle = smallAxpyBundle();
  Object ptx;
  ptx.target = "nvptx";
  ptx.format = "ptx";
  ptx.triple = "nvptx64-nvidia-cuda";
  ptx.data = ".version 8.0\n.target sm_90\n";
  bundle.objects.push_back(ptx);

  Kernel &kernel = bundle.kernels[0];
  KeySpec size;
  size.arg = 0;
  size.dim = 0;
  size.bucket = Bucket::Pow2;
  KeySpec n = kernel.key[0];
  n.bucket = Bucket::Bins;
  n.bins = {64, 1024, 1 << 20};
  kernel.key = {size, n};
  for (Variant &variant : kernel.variants) {
    int64_t work = variant.config[0].second;
    variant.grid[0] = {dim(0), constant(work > 0 ? work : 1),
                       op(ExprNode::Op::CeilDiv)};
    variant.block[0] = {constant(128)};
    variant.sharedMemBytes = {dim(1), constant(4), op(ExprNode::Op::Mul)};
    variant.constraints.push_back(
        {{dim(0), constant(-1), op(ExprNode::Op::Add)}, false});
    variant.constraints.push_back(
        {{dim(1), constant(16), op(ExprNode::Op::Mod)}, true});
    VariantCode onGpu;
    onGpu.object = 1;
    onGpu.symbol = variant.name;
    onGpu.resources = {32, 1024, 0, 0};
    variant.code.push_back(onGpu);
  }
  Kernel second = kernel;
  second.name = "axpy_floor";
  second.defaultVariant = 2;
  for (Variant &variant : second.variants)
    variant.grid[1] = {dim(1), constant(3), op(ExprNode::Op::FloorDiv)};
  bundle.kernels.push_back(second);
  return bundle;
}

bool writeFile(const std::filesystem::path &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

/// The manifest of a bundle file (docs/bundle-format.md: its size is the
/// little-endian 32-bit word at offset 12, the text starts at 24).
std::string manifestOf(const std::string &bundle) {
  uint32_t size = 0;
  for (int i = 0; i < 4; ++i)
    size |= uint32_t(static_cast<unsigned char>(bundle[12 + i])) << (8 * i);
  return bundle.substr(24, size);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <dir>\n", argv[0]);
    return 2;
  }
  std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir / "bundle");
  std::filesystem::create_directories(dir / "manifest");
  std::pair<const char *, Bundle> seeds[] = {
      {"axpy", smallAxpyBundle()}, {"every-field", everyFieldBundle()}};
  for (const auto &[name, bundle] : seeds) {
    std::string bytes = writeBundle(bundle);
    if (!writeFile(dir / "bundle" / (std::string(name) + ".tuna"), bytes) ||
        !writeFile(dir / "manifest" / (std::string(name) + ".json"),
                   manifestOf(bytes))) {
      std::fprintf(stderr, "%s: cannot write seeds under %s\n", argv[0],
                   argv[1]);
      return 1;
    }
  }
  return 0;
}
