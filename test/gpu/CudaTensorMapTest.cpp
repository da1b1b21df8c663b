//===- CudaTensorMapTest.cpp - A TMA tile load through a runtime tensor map ===//
//
// test/kernels/tma-prototype.mlir compiled by tuna-compile (the bundle named
// by TUNA_GPU_TMA_BUNDLE, which bench/run_gpu.sh sets, else the one compiled
// with the tests): its tma = 1 variant takes a CUtensorMap of its input that
// the runtime encodes at launch, loads one 32 x 64 box of f32 at (col, row)
// with cp.async.bulk.tensor and writes it to `out`; the default loads the
// same tile with plain loads. Fresh random inputs, a NaN-poisoned output,
// the tile read on the host; the parts of the box outside the input must
// arrive as zeros (the map's fill). The tuning checks every candidate's
// output against the default's, exactly.
//
//===----------------------------------------------------------------------===//

#include "GpuTest.h"

#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace tuna;
using namespace tuna::gpu;

namespace {

constexpr int64_t kBoxRows = 32, kBoxCols = 64;

#ifndef TUNA_GPU_TMA_TEST_BUNDLE
#define TUNA_GPU_TMA_TEST_BUNDLE nullptr
#endif

const BundleSetup &setup() {
  static const BundleSetup s = openBundleAndDevice(
      bundleFromEnvironment("TUNA_GPU_TMA_BUNDLE", TUNA_GPU_TMA_TEST_BUNDLE),
      "TUNA_GPU_TMA_BUNDLE is not set (bench/run_gpu.sh sets it to "
      "test/kernels/tma-prototype.mlir compiled for sm_90a)",
      "no CUDA device: ", [] { return Device::cuda(0); });
  return s;
}

/// A rows x cols input of random floats on the device, `offset` floats into
/// its buffer, and the box's output, poisoned, beside it.
struct TileBuffers {
  TileBuffers(Backend &backend, int64_t rows, int64_t cols, int64_t offset)
      : backend(backend), rows(rows), cols(cols), offset(offset),
        in(rows * cols),
        out(kBoxRows * kBoxCols, std::numeric_limits<float>::quiet_NaN()),
        din(backend, (in.size() + offset) * sizeof(float)),
        dout(backend, out.size() * sizeof(float)) {
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
    for (float &v : in)
      v = dist(rng);
    backend.copy(din.data() + offset, in.data(), in.size() * sizeof(float),
                 CopyKind::HostToDevice, nullptr);
  }

  /// Launches the kernel for the box at (col, row) (`tma_flat`: the input
  /// as a flat buffer with its sizes); the number of output elements that
  /// differ from the input there (zero outside it).
  int64_t wrongAt(Module &module, int32_t col, int32_t row,
                  bool flat = false) {
    backend.copy(dout.data(), out.data(), out.size() * sizeof(float),
                 CopyKind::HostToDevice, nullptr);
    MemRefView tile = memref(dout.data(), {kBoxRows * kBoxCols});
    if (flat)
      module.kernel("tma_flat").launch(
          nullptr, memref(din.data() + offset, {rows * cols}), tile, col, row,
          rows, cols);
    else
      module.kernel("tma_tile").launch(
          nullptr, memref(din.data() + offset, {rows, cols}), tile, col, row);
    backend.synchronize(nullptr);
    std::vector<float> got(out.size());
    backend.copy(got.data(), dout.data(), got.size() * sizeof(float),
                 CopyKind::DeviceToHost, nullptr);
    int64_t wrong = 0;
    for (int64_t r = 0; r < kBoxRows; ++r)
      for (int64_t c = 0; c < kBoxCols; ++c) {
        int64_t y = row + r, x = col + c;
        float expected = y < rows && x < cols ? in[y * cols + x] : 0.0f;
        wrong += !(got[r * kBoxCols + c] == expected);
      }
    return wrong;
  }

  Backend &backend;
  int64_t rows, cols, offset;
  std::vector<float> in, out;
  DeviceBuffer din, dout;
};

/// A module that checks every candidate's output against the default's,
/// exactly.
Module checkingModule() {
  Options options;
  options.check = true;
  options.atol = 0;
  options.rtol = 0;
  return Module::load(setup().bundle, *setup().device, options);
}

const CandidateResult &candidate(const TuningReport &report,
                                 const std::string &name) {
  for (const CandidateResult &c : report.candidates)
    if (c.name == name)
      return c;
  throw std::runtime_error("no candidate " + name);
}

} // namespace

TEST(CudaTensorMapTest, ABoxLoadsThroughTheMapWithZerosPastTheEdges) {
  REQUIRE_GPU();
  Module module = checkingModule();
  // 100 x 200: rows of 800 bytes (a multiple of 16, as TMA needs).
  TileBuffers buffers(setup().device->backend(), 100, 200, 0);
  EXPECT_EQ(buffers.wrongAt(module, 0, 0), 0);
  const TuningReport report = module.kernel("tma_tile").reports().back();
  EXPECT_TRUE(report.checked) << report.checkSkipped;
  // Timed after its output matched the default's (or stopped early as
  // slower, which comes after the check too).
  const CandidateResult &tma = candidate(report, "tma_tile__v1");
  EXPECT_TRUE(tma.status == CandidateStatus::Measured ||
              tma.status == CandidateStatus::Eliminated)
      << tma.reason;
  EXPECT_EQ(buffers.wrongAt(module, 64, 32), 0);
  // 8 columns and 12 rows of the box lie past the input's edges.
  EXPECT_EQ(buffers.wrongAt(module, 144, 80), 0);
}

// 4 bytes into the buffer, the input's base address is not 16-byte
// aligned: another signature, where the map's variant is excluded with the
// reason, and the default loads the tile.
TEST(CudaTensorMapTest, AMisalignedInputRunsTheVariantWithoutAMap) {
  REQUIRE_GPU();
  Module module = checkingModule();
  TileBuffers buffers(setup().device->backend(), 100, 200, 1);
  EXPECT_EQ(buffers.wrongAt(module, 144, 80), 0);
  const TuningReport report = module.kernel("tma_tile").reports().back();
  const CandidateResult &tma = candidate(report, "tma_tile__v1");
  EXPECT_EQ(tma.status, CandidateStatus::Excluded);
  EXPECT_NE(tma.reason.find("not 16-byte aligned"), std::string::npos)
      << tma.reason;
  EXPECT_EQ(report.chosenName, "tma_tile__v0");
}

// The flat-buffer twin (`tma_flat`): its map views the rank-1 input as a
// height x width matrix (the map's `shape`), as the library's matmuls take
// their matrices.
TEST(CudaTensorMapTest, AShapedMapLoadsTheBoxOfAFlatBuffer) {
  REQUIRE_GPU();
  Module module = checkingModule();
  TileBuffers buffers(setup().device->backend(), 100, 200, 0);
  EXPECT_EQ(buffers.wrongAt(module, 0, 0, /*flat=*/true), 0);
  const TuningReport report = module.kernel("tma_flat").reports().back();
  EXPECT_TRUE(report.checked) << report.checkSkipped;
  const CandidateResult &tma = candidate(report, "tma_flat__v1");
  EXPECT_TRUE(tma.status == CandidateStatus::Measured ||
              tma.status == CandidateStatus::Eliminated)
      << tma.reason;
  EXPECT_EQ(buffers.wrongAt(module, 144, 80, /*flat=*/true), 0);
}
