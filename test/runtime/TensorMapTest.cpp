//===- TensorMapTest.cpp - Variants that take TMA tensor maps -------------===//
//
// Without a GPU: the encode parameters a map is made of (a pure function),
// the rules a view must follow, the per-thread map cache, and, against a
// simulated device that "encodes" maps by writing down what it was given,
// the launch (maps after the proper parameters, for the addresses launched),
// the hidden signature component and the exclusions it causes, a device or
// driver without maps, and a driver that refuses a map.
//
//===----------------------------------------------------------------------===//

#include "TensorMapCache.h"
#include "TensorMapRules.h"
#include "TestBundles.h"

#include "tuna/runtime/Runtime.h"
#include "tuna/runtime/ScalarType.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

using namespace tuna;
using namespace tuna::test;

namespace {

using Encoding = TensorMapEncoding;
using Rule = TensorMapProblem::Rule;

/// A row-major rows x cols view of f32 at `data` with row stride `ld`
/// elements.
MemRefView matrix(float *data, int64_t rows, int64_t cols, int64_t ld) {
  MemRefView view = memref(data, {rows, cols});
  view.strides[0] = ld;
  return view;
}

TensorMapSpec mapOf(int arg, int l2 = 0, bool nan = false) {
  TensorMapSpec spec;
  spec.arg = arg;
  spec.l2PromotionBytes = l2;
  spec.oobFillNaN = nan;
  return spec;
}

} // namespace

//===----------------------------------------------------------------------===//
// The encode parameters and the rules
//===----------------------------------------------------------------------===//

TEST(TensorMapRulesTest, EncodingIsTheViewInnermostFirst) {
  alignas(64) static uint16_t data[100 * 72 + 8];
  // 100 rows of 64 f16 elements, 72 apart (144 bytes), from element 8.
  MemRefView view = memref(ScalarType::F16, data, {100, 64});
  view.strides[0] = 72;
  view.offset = 8;
  int64_t box[] = {64, 32};
  Encoding encoding;
  TensorMapProblem problem =
      tensorMapEncoding(view, mapOf(0, 128), box, 128, encoding);
  ASSERT_FALSE(problem) << problem.describe();
  EXPECT_EQ(encoding.address, reinterpret_cast<uint64_t>(data) + 16);
  EXPECT_EQ(encoding.rank, 2u);
  EXPECT_EQ(encoding.dataType, Encoding::DataType::Float16);
  EXPECT_EQ(encoding.globalDim[0], 64u);
  EXPECT_EQ(encoding.globalDim[1], 100u);
  EXPECT_EQ(encoding.globalStrides[0], 144u);
  EXPECT_EQ(encoding.boxDim[0], 64u);
  EXPECT_EQ(encoding.boxDim[1], 32u);
  EXPECT_EQ(encoding.elementStrides[0], 1u);
  EXPECT_EQ(encoding.elementStrides[1], 1u);
  EXPECT_EQ(encoding.globalDim[2], 0u);
  EXPECT_EQ(encoding.boxDim[2], 0u);
  EXPECT_EQ(encoding.swizzle, Encoding::Swizzle::B128);
  EXPECT_EQ(encoding.l2Promotion, Encoding::L2Promotion::B128);
  EXPECT_EQ(encoding.oobFill, Encoding::OobFill::None);
}

TEST(TensorMapRulesTest, EnumsCarryTheDriversValues) {
  // cuda.h's values (the CUDA backend static_asserts them too).
  struct Case {
    ScalarType type;
    uint64_t driverValue;
  };
  for (Case c : {Case{ScalarType::I8, 0}, Case{ScalarType::I32, 3},
                 Case{ScalarType::I64, 5}, Case{ScalarType::F16, 6},
                 Case{ScalarType::F32, 7}, Case{ScalarType::F64, 8},
                 Case{ScalarType::BF16, 9}}) {
    alignas(64) static char data[4096];
    MemRefView view = memref(c.type, data, {4, 64});
    int64_t box[] = {64, 2};
    Encoding encoding;
    ASSERT_FALSE(tensorMapEncoding(view, mapOf(0), box, 0, encoding));
    EXPECT_EQ(static_cast<uint64_t>(encoding.dataType), c.driverValue)
        << scalarTypeName(c.type);
  }
  alignas(64) static float data[64];
  MemRefView view = memref(data, {64});
  int64_t box[] = {8};
  std::map<int, uint64_t> swizzles = {{0, 0}, {32, 1}, {64, 2}, {128, 3}};
  for (auto [bytes, mode] : swizzles) {
    Encoding encoding;
    ASSERT_FALSE(
        tensorMapEncoding(view, mapOf(0, 256, true), box, bytes, encoding));
    EXPECT_EQ(static_cast<uint64_t>(encoding.swizzle), mode) << bytes;
    EXPECT_EQ(static_cast<uint64_t>(encoding.l2Promotion), 3u);
    EXPECT_EQ(static_cast<uint64_t>(encoding.oobFill), 1u);
  }
}

TEST(TensorMapRulesTest, ViewsTmaCannotDescribeSayWhichRule) {
  alignas(64) static float data[64 * 1100];
  MemRefView aligned = matrix(data, 8, 64, 64);
  EXPECT_FALSE(checkTensorMapView(aligned));

  MemRefView shifted = aligned;
  shifted.offset = 1;
  TensorMapProblem problem = checkTensorMapView(shifted);
  EXPECT_EQ(problem.rule, Rule::BaseAlignment);
  char address[32];
  std::snprintf(
      address, sizeof(address), "0x%llx",
      static_cast<unsigned long long>(reinterpret_cast<uint64_t>(data) + 4));
  EXPECT_EQ(problem.describe(), std::string("base address ") + address +
                                    " is not 16-byte aligned (TMA needs 16)");

  MemRefView columns = aligned;
  columns.strides[1] = 2;
  EXPECT_EQ(checkTensorMapView(columns).describe(),
            "the stride of the innermost dimension (1) is 2 elements, not 1 "
            "(TMA needs it contiguous)");

  EXPECT_EQ(checkTensorMapView(matrix(data, 8, 64, 1026)).describe(),
            "the stride of dimension 0 is 4104 bytes, not a multiple of 16");
  EXPECT_EQ(checkTensorMapView(matrix(data, 8, 64, int64_t(1) << 38)).rule,
            Rule::StrideRange);
  EXPECT_EQ(checkTensorMapView(matrix(data, 8, 64, -64)).rule,
            Rule::StrideRange);
  EXPECT_EQ(checkTensorMapView(matrix(data, 8, 64, INT64_MAX / 2)).rule,
            Rule::StrideRange);
  EXPECT_EQ(checkTensorMapView(matrix(data, 0, 64, 64)).describe(),
            "the size of dimension 0 is 0, not within 1..2^32");
  EXPECT_EQ(
      checkTensorMapView(matrix(data, (int64_t(1) << 32) + 1, 64, 64)).rule,
      Rule::SizeRange);
  EXPECT_FALSE(checkTensorMapView(matrix(data, int64_t(1) << 32, 64, 64)));
  MemRefView rank6 = memref(data, {1, 1, 1, 1, 1, 64});
  EXPECT_EQ(checkTensorMapView(rank6).rule, Rule::Rank);
}

TEST(TensorMapRulesTest, BoxesTmaCannotLoadSayWhichRule) {
  alignas(64) static float data[64 * 64];
  MemRefView view = matrix(data, 64, 64, 64);
  Encoding encoding;
  int64_t tooLong[] = {8, 300};
  EXPECT_EQ(tensorMapEncoding(view, mapOf(0), tooLong, 0, encoding).describe(),
            "box entry 1 (innermost first) is 300, not within 1..256");
  int64_t narrow[] = {2, 8};
  EXPECT_EQ(tensorMapEncoding(view, mapOf(0), narrow, 0, encoding).describe(),
            "the inner box is 8 bytes, not a multiple of 16");
  int64_t wide[] = {16, 8};
  EXPECT_EQ(tensorMapEncoding(view, mapOf(0), wide, 32, encoding).describe(),
            "the inner box is 64 bytes, over the 32-byte swizzle");
  EXPECT_FALSE(tensorMapEncoding(view, mapOf(0), wide, 64, encoding));
}

TEST(TensorMapRulesTest, AShapeViewsAContiguousFlatMemref) {
  alignas(64) static float data[1000];
  MemRefView view;
  int64_t fits[] = {10, 64};
  ASSERT_FALSE(viewAsShape(memref(data, {1000}), fits, 2, view));
  EXPECT_EQ(view.rank, 2);
  EXPECT_EQ(view.sizes[0], 10);
  EXPECT_EQ(view.sizes[1], 64);
  EXPECT_EQ(view.strides[0], 64);
  EXPECT_EQ(view.strides[1], 1);
  EXPECT_EQ(view.aligned, static_cast<void *>(data));
  int64_t over[] = {16, 64};
  EXPECT_EQ(viewAsShape(memref(data, {1000}), over, 2, view).describe(),
            "its shape views 1024 elements of a memref of 1000");
  int64_t empty[] = {0, 64};
  EXPECT_EQ(viewAsShape(memref(data, {1000}), empty, 2, view).describe(),
            "the size of dimension 0 is 0, not within 1..2^32");
  MemRefView strided = memref(data, {500});
  strided.strides[0] = 2;
  EXPECT_EQ(viewAsShape(strided, fits, 2, view).describe(),
            "the stride of the innermost dimension (0) is 2 elements, not 1 "
            "(TMA needs it contiguous)");
}

TEST(TensorMapRulesTest, ElementTypesAreThoseTheCompilerTakes) {
  for (ScalarType type : {ScalarType::I8, ScalarType::I32, ScalarType::I64,
                          ScalarType::F16, ScalarType::BF16, ScalarType::F32,
                          ScalarType::F64})
    EXPECT_TRUE(isTensorMapElementType(type)) << scalarTypeName(type);
  for (ScalarType type : {ScalarType::I1, ScalarType::I16, ScalarType::Index})
    EXPECT_FALSE(isTensorMapElementType(type)) << scalarTypeName(type);
}

TEST(TensorMapRulesTest, CudaSupportNeedsSm90AndTheDriversEntryPoint) {
  EXPECT_EQ(cudaTensorMapSupport(90, true, "NVIDIA H100"), "");
  EXPECT_EQ(cudaTensorMapSupport(100, true, "NVIDIA B200"), "");
  EXPECT_EQ(cudaTensorMapSupport(80, true, "NVIDIA A100"),
            "tensor maps need compute capability 9.0 and a CUDA 12 driver "
            "(NVIDIA A100 is sm_80)");
  EXPECT_EQ(cudaTensorMapSupport(90, false, "NVIDIA H100"),
            "tensor maps need compute capability 9.0 and a CUDA 12 driver "
            "(the CUDA driver lacks cuTensorMapEncodeTiled)");
}

//===----------------------------------------------------------------------===//
// The map cache
//===----------------------------------------------------------------------===//

TEST(TensorMapCacheTest, AHitReturnsTheMapWithoutEncodingAgain) {
  auto cache = std::make_unique<TensorMapCache>();
  int encodes = 0;
  auto encode = [&](const Encoding &e, TensorMapBytes &map) {
    ++encodes;
    std::memset(&map, 0, sizeof(map));
    map.words[0] = e.address;
    map.words[1] = static_cast<uint64_t>(encodes);
  };
  Encoding a;
  a.address = 0x1000;
  a.rank = 1;
  a.globalDim[0] = 64;
  a.boxDim[0] = 16;
  const TensorMapBytes &first = cache->get(1, a, encode);
  EXPECT_EQ(encodes, 1);
  EXPECT_EQ(first.words[0], 0x1000u);
  const TensorMapBytes &again = cache->get(1, a, encode);
  EXPECT_EQ(encodes, 1);
  EXPECT_EQ(&again, &first);
  EXPECT_EQ(again.words[1], 1u);

  Encoding b = a;
  b.address = 0x2000; // Another pointer: a miss.
  EXPECT_EQ(cache->get(1, b, encode).words[0], 0x2000u);
  EXPECT_EQ(encodes, 2);
  Encoding c = a;
  c.boxDim[0] = 32; // Another box (another variant, other key values).
  cache->get(1, c, encode);
  EXPECT_EQ(encodes, 3);
  // 64 slots: a few encodings still hit after others went in.
  cache->get(1, a, encode);
  cache->get(1, b, encode);
  EXPECT_LE(encodes, 5);
}

TEST(TensorMapCacheTest, AnotherBackendEncodesItsOwn) {
  // Two backends' maps of one encoding may differ (a fake and a real one,
  // or two drivers): a map is reused only by the backend that made it.
  auto cache = std::make_unique<TensorMapCache>();
  Encoding a;
  a.address = 0x4000;
  int encodes = 0;
  auto encodeAs = [&encodes](uint64_t word) {
    return [&encodes, word](const Encoding &, TensorMapBytes &map) {
      ++encodes;
      map.words[0] = word;
    };
  };
  EXPECT_EQ(cache->get(1, a, encodeAs(11)).words[0], 11u);
  EXPECT_EQ(cache->get(2, a, encodeAs(22)).words[0], 22u);
  EXPECT_EQ(encodes, 2);
  EXPECT_EQ(cache->get(2, a, encodeAs(99)).words[0], 22u);
  EXPECT_EQ(encodes, 2);
}

TEST(TensorMapCacheTest, AFailedEncodingLeavesNothingBehind) {
  auto cache = std::make_unique<TensorMapCache>();
  Encoding a;
  a.address = 0x3000;
  int encodes = 0;
  EXPECT_THROW(cache->get(1, a,
                          [&](const Encoding &, TensorMapBytes &map) {
                            ++encodes;
                            map.words[0] = 99;
                            throw Error(ErrorCode::Backend, "refused");
                          }),
               Error);
  const TensorMapBytes &map =
      cache->get(1, a, [&](const Encoding &, TensorMapBytes &out) {
        ++encodes;
        out.words[0] = 7;
      });
  EXPECT_EQ(encodes, 2);
  EXPECT_EQ(map.words[0], 7u);
}

//===----------------------------------------------------------------------===//
// Launching through a simulated device
//===----------------------------------------------------------------------===//

namespace {

Options quickOptions() {
  Options options;
  options.minSampleMs = 0;
  options.minRuns = options.maxRuns = 3;
  return options;
}

const CandidateResult &candidate(const TuningReport &report,
                                 const std::string &name) {
  for (const CandidateResult &result : report.candidates)
    if (result.name == name)
      return result;
  throw std::runtime_error("no candidate " + name);
}

struct TileData {
  alignas(256) float data[16 * 64 + 64];
};

/// `count` floats, 256-byte aligned.
struct AlignedFloats {
  explicit AlignedFloats(size_t count)
      : data(static_cast<float *>(std::aligned_alloc(
            256, (count * sizeof(float) + 255) / 256 * 256))) {}
  ~AlignedFloats() { std::free(data); }
  AlignedFloats(const AlignedFloats &) = delete;
  AlignedFloats &operator=(const AlignedFloats &) = delete;
  float *data;
};

} // namespace

TEST(TensorMapLaunchTest, MapsFollowTheProperParametersForTheLaunchedBuffer) {
  auto gpu = std::make_shared<MapGpu>();
  Module module = Module::fromBundle(tileBundle(), Device(gpu), "tile.tuna",
                                     quickOptions());
  TunedKernel &kernel = module.kernel("tile");
  auto buffer = std::make_unique<TileData>();
  MemRefView a = memref(buffer->data, {16, 64});
  kernel.launch(nullptr, a, int64_t(7));

  TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(report.signature, (std::vector<int64_t>{16, 64, 1}));
  EXPECT_EQ(report.chosenName, "tma");
  EXPECT_EQ(candidate(report, "tma").status, CandidateStatus::Measured);
  // Every launch of "tma" carried a map of the buffer it was launched with:
  // scratch copies while tuning, the application's buffer at the end.
  bool sawScratch = false;
  for (const SeenLaunch &seen : gpu->seen()) {
    if (!seen.tma)
      continue;
    EXPECT_EQ(seen.map.words[0], seen.base);
    EXPECT_EQ(seen.map.words[1], 64u); // Innermost size first.
    EXPECT_EQ(seen.map.words[2], 16u);
    EXPECT_EQ(seen.map.words[3], 64u * sizeof(float));
    EXPECT_EQ(seen.map.words[4], 8u);
    EXPECT_EQ(seen.map.words[5], 8u); // d0 floordiv 2.
    EXPECT_EQ(seen.map.words[6], static_cast<uint64_t>(Encoding::Swizzle::B32));
    EXPECT_EQ(seen.map.words[7],
              static_cast<uint64_t>(Encoding::DataType::Float32));
    sawScratch |= seen.base != reinterpret_cast<uint64_t>(buffer->data);
  }
  EXPECT_TRUE(sawScratch);
  ASSERT_TRUE(gpu->seen().back().tma);
  EXPECT_EQ(gpu->seen().back().base, reinterpret_cast<uint64_t>(buffer->data));

  // The known signature again: the cached map, nothing encoded.
  int encodes = gpu->encodes;
  kernel.launch(nullptr, a, int64_t(7));
  EXPECT_EQ(gpu->encodes, encodes);
  EXPECT_EQ(gpu->seen().back().map.words[0],
            reinterpret_cast<uint64_t>(buffer->data));
  // Another buffer of the signature: a map of its address, encoded once
  // more (or not at all where the allocator gave it the address of a
  // scratch copy the tuning freed: that map is the same).
  auto other = std::make_unique<TileData>();
  kernel.launch(nullptr, memref(other->data, {16, 64}), int64_t(7));
  EXPECT_LE(gpu->encodes, encodes + 1);
  EXPECT_EQ(gpu->seen().back().map.words[0],
            reinterpret_cast<uint64_t>(other->data));
  EXPECT_EQ(kernel.reports().size(), 1u);
}

/// tileBundle() with its matrix as a flat buffer (a rank-1 memref) and
/// its sizes as scalars (rows, cols: the key), the map viewing the buffer
/// as rows x cols.
Bundle flatTileBundle() {
  Bundle bundle = tileBundle();
  Kernel &kernel = bundle.kernels[0];
  kernel.args = {{ArgSpec::Kind::MemRef, ScalarType::F32, 1, true},
                 {ArgSpec::Kind::Scalar, ScalarType::I64, 0, false},
                 {ArgSpec::Kind::Scalar, ScalarType::I64, 0, false}};
  kernel.key = {{1, -1, Bucket::Exact, {}}, {2, -1, Bucket::Exact, {}}};
  kernel.tensorMaps[0].shape = {{dim(0)}, {dim(1)}};
  return bundle;
}

TEST(TensorMapLaunchTest, AShapeViewsAFlatBufferAsAMatrix) {
  auto gpu = std::make_shared<MapGpu>();
  gpu->mapParam = 7; // A rank-1 memref and two scalars.
  Module module = Module::fromBundle(flatTileBundle(), Device(gpu), "tile.tuna",
                                     quickOptions());
  TunedKernel &kernel = module.kernel("tile");
  auto buffer = std::make_unique<TileData>();
  kernel.launch(nullptr, memref(buffer->data, {16 * 64}), int64_t(16),
                int64_t(64));
  TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(report.signature, (std::vector<int64_t>{16, 64, 1}));
  EXPECT_EQ(report.chosenName, "tma");
  const SeenLaunch last = gpu->seen().back();
  ASSERT_TRUE(last.tma);
  EXPECT_EQ(last.map.words[0], reinterpret_cast<uint64_t>(buffer->data));
  EXPECT_EQ(last.map.words[1], 64u); // cols, innermost first
  EXPECT_EQ(last.map.words[2], 16u); // rows
  EXPECT_EQ(last.map.words[3], 64u * sizeof(float));
  EXPECT_EQ(last.map.words[5], 8u); // d0 floordiv 2

  // A buffer one element short of the shape: another signature, where the
  // map's variant is excluded with the reason.
  kernel.launch(nullptr, memref(buffer->data, {16 * 64 - 1}), int64_t(16),
                int64_t(64));
  report = kernel.reports().at(1);
  EXPECT_EQ(report.signature, (std::vector<int64_t>{16, 64, 0}));
  EXPECT_EQ(candidate(report, "tma").status, CandidateStatus::Excluded);
  EXPECT_EQ(candidate(report, "tma").reason,
            "tensor map 0 of argument #0: its shape views 1024 elements of a "
            "memref of 1023");
  EXPECT_EQ(report.chosenName, "plain");
}

TEST(TensorMapLaunchTest, AMisalignedBufferIsAnotherSignatureWithoutTheMap) {
  auto gpu = std::make_shared<MapGpu>();
  Module module = Module::fromBundle(tileBundle(), Device(gpu), "tile.tuna",
                                     quickOptions());
  TunedKernel &kernel = module.kernel("tile");
  auto buffer = std::make_unique<TileData>();
  MemRefView aligned = memref(buffer->data, {16, 64});
  MemRefView shifted = aligned;
  shifted.offset = 1;
  EXPECT_EQ(
      kernel.signature(
          std::vector<ArgValue>{toArg(aligned), toArg(int64_t(7))}.data(), 2),
      (std::vector<int64_t>{16, 64, 1}));
  EXPECT_EQ(
      kernel.signature(
          std::vector<ArgValue>{toArg(shifted), toArg(int64_t(7))}.data(), 2),
      (std::vector<int64_t>{16, 64, 0}));

  kernel.launch(nullptr, aligned, int64_t(7));
  kernel.launch(nullptr, shifted, int64_t(7));
  ASSERT_EQ(kernel.reports().size(), 2u);
  TuningReport report = kernel.reports().at(1);
  EXPECT_EQ(report.chosenName, "plain");
  const CandidateResult &tma = candidate(report, "tma");
  EXPECT_EQ(tma.status, CandidateStatus::Excluded);
  char address[32];
  std::snprintf(address, sizeof(address), "0x%llx",
                static_cast<unsigned long long>(
                    reinterpret_cast<uint64_t>(buffer->data) + 4));
  EXPECT_EQ(tma.reason, std::string("tensor map 0 of argument #0: base "
                                    "address ") +
                            address + " is not 16-byte aligned (TMA needs 16)");
  EXPECT_FALSE(gpu->seen().back().tma);
  // Each signature keeps its own decision.
  EXPECT_EQ(kernel.chosenVariant({16, 64, 1}), 1);
  EXPECT_EQ(kernel.chosenVariant({16, 64, 0}), 0);
}

TEST(TensorMapLaunchTest, ARowStrideTmaCannotTakeExcludesTheMapVariant) {
  auto gpu = std::make_shared<MapGpu>();
  Module module = Module::fromBundle(tileBundle(), Device(gpu), "tile.tuna",
                                     quickOptions());
  TunedKernel &kernel = module.kernel("tile");
  AlignedFloats data(16 * 1026);
  // Rows 1026 floats apart: 4104 bytes.
  kernel.launch(nullptr, matrix(data.data, 16, 64, 1026), int64_t(7));
  TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(report.signature.back(), 0);
  EXPECT_EQ(candidate(report, "tma").status, CandidateStatus::Excluded);
  EXPECT_EQ(candidate(report, "tma").reason,
            "tensor map 0 of argument #0: the stride of dimension 0 is 4104 "
            "bytes, not a multiple of 16");
  EXPECT_EQ(report.chosenName, "plain");
  EXPECT_EQ(gpu->encodes, 0);
}

TEST(TensorMapLaunchTest, ADeviceWithoutMapsSaysWhy) {
  auto gpu = std::make_shared<MapGpu>();
  gpu->support = cudaTensorMapSupport(90, false, "Map GPU");
  Module module = Module::fromBundle(tileBundle(), Device(gpu), "tile.tuna",
                                     quickOptions());
  TunedKernel &kernel = module.kernel("tile");
  auto buffer = std::make_unique<TileData>();
  kernel.launch(nullptr, memref(buffer->data, {16, 64}), int64_t(7));
  TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(candidate(report, "tma").status, CandidateStatus::Unrunnable);
  EXPECT_EQ(candidate(report, "tma").reason,
            "tensor maps need compute capability 9.0 and a CUDA 12 driver "
            "(the CUDA driver lacks cuTensorMapEncodeTiled)");
  EXPECT_EQ(report.chosenName, "plain");
  EXPECT_EQ(gpu->encodes, 0);
}

TEST(TensorMapLaunchTest, TheHostBackendTakesNoMaps) {
  EXPECT_EQ(Device::host().backend().tensorMapSupport(),
            "tensor maps need compute capability 9.0 and a CUDA 12 driver "
            "(host devices have none)");
  TensorMapBytes map;
  try {
    Device::host().backend().encodeTensorMap(Encoding(), map, "a map");
    FAIL() << "the host backend encoded a map";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("a map: tensor maps need"),
              std::string::npos)
        << e.what();
  }
}

TEST(TensorMapLaunchTest, AMapTheDriverRefusesLeavesTheOtherVariants) {
  auto gpu = std::make_shared<MapGpu>();
  gpu->refuse = true;
  Module module = Module::fromBundle(tileBundle(), Device(gpu), "tile.tuna",
                                     quickOptions());
  TunedKernel &kernel = module.kernel("tile");
  // Other sizes than the other tests': the thread's map cache has none.
  auto buffer = std::make_unique<TileData>();
  kernel.launch(nullptr, memref(buffer->data, {12, 64}), int64_t(7));
  TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(report.signature.back(), 1);
  EXPECT_EQ(candidate(report, "tma").status, CandidateStatus::Unrunnable);
  EXPECT_EQ(candidate(report, "tma").reason,
            "kernel 'tile' in 'tile.tuna' variant 'tma', tensor map 0 of "
            "argument #0: cuTensorMapEncodeTiled failed: "
            "CUDA_ERROR_INVALID_VALUE (1)");
  EXPECT_EQ(report.chosenName, "plain");
  EXPECT_FALSE(gpu->seen().back().tma);
}

TEST(TensorMapLaunchTest, ABoxTmaCannotLoadMakesTheVariantUnrunnable) {
  auto gpu = std::make_shared<MapGpu>();
  Module module = Module::fromBundle(tileBundle(), Device(gpu), "tile.tuna",
                                     quickOptions());
  TunedKernel &kernel = module.kernel("tile");
  // d0 floordiv 2 = 300: over TMA's 256.
  AlignedFloats data(600 * 64);
  kernel.launch(nullptr, memref(data.data, {600, 64}), int64_t(7));
  TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(candidate(report, "tma").status, CandidateStatus::Unrunnable);
  EXPECT_EQ(candidate(report, "tma").reason,
            "kernel 'tile' in 'tile.tuna' variant 'tma', tensor map 0 of "
            "argument #0: box entry 1 (innermost first) is 300, not within "
            "1..256");
  EXPECT_EQ(report.chosenName, "plain");
}

TEST(TensorMapLaunchTest, AMapTheBundleDescribesBadlyIsRefusedAtLoad) {
  Bundle bundle = tileBundle();
  bundle.kernels[0].variants[1].tensorMaps[0].map = 3;
  auto gpu = std::make_shared<MapGpu>();
  try {
    Module::fromBundle(bundle, Device(gpu), "tile.tuna", quickOptions());
    FAIL() << "a variant that takes a map the kernel lacks was loaded";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "variant 'tma' tensor map 0 takes map 3, but the kernel has 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(TensorMapLaunchTest, KernelsWithoutMapsKeepTheirSignature) {
  Module module = Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna",
                                     quickOptions());
  std::vector<float> x(8), y(8);
  std::vector<ArgValue> args = {toArg(memref(x.data(), {8})),
                                toArg(memref(y.data(), {8})), toArg(2.0f),
                                toArg(int64_t(8))};
  EXPECT_EQ(module.kernel("axpy").signature(args.data(), args.size()),
            (std::vector<int64_t>{8}));
}

//===----------------------------------------------------------------------===//
// The CUDA driver, where there is one
//===----------------------------------------------------------------------===//

namespace {
/// The CUDA device 0, or why a test of it is skipped.
std::shared_ptr<Device> cudaDevice(std::string &skip) {
  try {
    return std::make_shared<Device>(Device::cuda(0));
  } catch (const Error &e) {
    skip = std::string("no CUDA device: ") + e.what();
    return nullptr;
  }
}
} // namespace

// What the runtime encodes for a launch, encoded by the real driver for a
// device buffer: it takes it, and refuses an address TMA cannot use with
// the call's name and error. (The end-to-end launch of a map-taking kernel
// needs a compiled one: added with the compiler's side.)
TEST(TensorMapCudaTest, TheDriverEncodesAMapOfADeviceBuffer) {
  std::string skip;
  std::shared_ptr<Device> device = cudaDevice(skip);
  if (!device)
    GTEST_SKIP() << skip;
  Backend &backend = device->backend();
  std::string support = backend.tensorMapSupport();
  if (!support.empty()) {
    EXPECT_EQ(support.rfind("tensor maps need compute capability 9.0", 0), 0u)
        << support;
    GTEST_SKIP() << support;
  }
  const int64_t rows = 128, cols = 64;
  void *buffer = backend.allocate(rows * cols * sizeof(uint16_t));
  MemRefView view = memref(ScalarType::BF16, buffer, {rows, cols});
  int64_t box[] = {64, 32};
  Encoding encoding;
  ASSERT_FALSE(tensorMapEncoding(view, mapOf(0, 128), box, 128, encoding));
  TensorMapBytes map = {};
  try {
    backend.encodeTensorMap(encoding, map, "a bf16 tile of a device buffer");
  } catch (const Error &e) {
    backend.deallocate(buffer);
    FAIL() << e.what();
  }
  bool written = false;
  for (uint64_t word : map.words)
    written |= word != 0;
  EXPECT_TRUE(written);

  Encoding misaligned = encoding;
  misaligned.address += 8;
  try {
    backend.encodeTensorMap(misaligned, map, "a misaligned map");
    ADD_FAILURE() << "the driver encoded a map of a misaligned address";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::Backend);
    EXPECT_NE(std::string(e.what()).find(
                  "a misaligned map: cuTensorMapEncodeTiled failed"),
              std::string::npos)
        << e.what();
  }
  backend.deallocate(buffer);
}
