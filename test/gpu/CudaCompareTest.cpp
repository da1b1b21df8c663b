//===- CudaCompareTest.cpp - The check's comparison on the GPU ------------===//
//
// DeviceComparison (runtime/lib/DeviceCompare.h) against compareElements on
// random data of every element type, with NaNs, infinities, subnormals and
// elements on both sides of the tolerance's edge: the same verdict, count,
// worst element, description and scale. Skipped without a CUDA device.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "DeviceCompare.h"
#include "SpecialValues.h"

#include "tuna/runtime/Device.h"
#include "tuna/runtime/Error.h"
#include "tuna/runtime/ScalarType.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace tuna::gpu {
namespace {

struct CompareSetup {
  std::string skip;
  std::unique_ptr<Device> device;
  std::unique_ptr<DeviceComparison> comparison;
};

CompareSetup &setup() {
  static CompareSetup setup = [] {
    CompareSetup s;
    try {
      s.device = std::make_unique<Device>(Device::cuda(0));
    } catch (const Error &e) {
      s.skip = e.what();
      return s;
    }
    std::string whyNot;
    s.comparison = DeviceComparison::load(s.device->backend(), whyNot);
    if (!s.comparison)
      ADD_FAILURE() << "the comparison kernels do not load: " << whyNot;
    return s;
  }();
  return setup;
}

#define REQUIRE_COMPARISON()                                                   \
  do {                                                                         \
    if (!setup().skip.empty())                                                 \
      GTEST_SKIP() << setup().skip;                                            \
    ASSERT_TRUE(setup().comparison);                                           \
  } while (0)

/// `bytes` on the device, filled from `host`; frees itself.
class DeviceCopy {
public:
  explicit DeviceCopy(const std::string &host)
      : backend(setup().device->backend()),
        ptr(backend.allocate(host.size())) {
    backend.copy(ptr, host.data(), host.size(), CopyKind::HostToDevice,
                 nullptr);
  }
  ~DeviceCopy() { backend.deallocate(ptr); }
  DeviceCopy(const DeviceCopy &) = delete;
  DeviceCopy &operator=(const DeviceCopy &) = delete;
  const void *get() const { return ptr; }

private:
  Backend &backend;
  void *ptr;
};

/// Moves element `i` of `got` to the edge of what `allowance` allows for
/// `want`'s element (`beyond`: one step past it): the largest step k of its
/// magnitude's bits that is still allowed, found by bisection (the error
/// grows with k).
void moveToEdge(ScalarType type, const std::string &want, std::string &got,
                size_t i, const Allowance &allowance, bool beyond) {
  size_t size = scalarTypeSize(type);
  double b = elementValue(type, &want[i * size]);
  if (!std::isfinite(b))
    return;
  double allowed = allowance.absolute + allowance.relative * std::fabs(b);
  uint64_t bits = 0;
  std::memcpy(&bits, &want[i * size], size);
  uint64_t signBit = uint64_t(1) << (8 * size - 1);
  auto stepped = [&](uint64_t k, std::string &element) {
    uint64_t magnitude = (bits & (signBit - 1)) + k;
    if (magnitude >= signBit)
      return false;
    uint64_t next = (bits & signBit) | magnitude;
    element.assign(size, '\0');
    std::memcpy(element.data(), &next, size);
    double a = elementValue(type, element.data());
    return std::fabs(a - b) <= allowed;
  };
  std::string element;
  uint64_t low = 0, high = 1;
  while (stepped(high, element)) {
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    uint64_t middle = low + (high - low) / 2;
    (stepped(middle, element) ? low : high) = middle;
  }
  stepped(beyond ? high : low, element);
  std::memcpy(&got[i * size], element.data(), size);
}

void expectAgreement(ScalarType type, size_t count, uint32_t seed) {
  SCOPED_TRACE(std::string(scalarTypeName(type)) + " x " +
               std::to_string(count) + ", seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  size_t size = scalarTypeSize(type);
  std::string want(count * size, '\0');
  if (isFloatType(type)) {
    // Values of a few magnitudes, so that the scale matters.
    for (size_t i = 0; i < count; ++i) {
      double value = std::ldexp(std::uniform_real_distribution<>(-1, 1)(rng),
                                static_cast<int>(rng() % 12) - 4);
      float single = static_cast<float>(value);
      switch (type) {
      case ScalarType::F64:
        std::memcpy(&want[i * size], &value, size);
        break;
      case ScalarType::F32:
        std::memcpy(&want[i * size], &single, size);
        break;
      case ScalarType::BF16: {
        uint32_t bits;
        std::memcpy(&bits, &single, 4);
        uint16_t top = static_cast<uint16_t>(bits >> 16);
        std::memcpy(&want[i * size], &top, size);
        break;
      }
      default: {
        // f16: random bits of a normal or subnormal half of |x| < 16.
        uint16_t half = static_cast<uint16_t>(rng() & 0xcbff);
        std::memcpy(&want[i * size], &half, size);
        break;
      }
      }
    }
  } else {
    for (char &byte : want)
      byte = static_cast<char>(rng());
  }
  std::string got = want;
  Allowance allowance = Allowance::of(
      type, -1, -1, outputScale(type, want.data(), want.size()));
  size_t changes = 1 + rng() % 64;
  for (size_t c = 0; c < changes; ++c) {
    size_t i = rng() % count;
    switch (rng() % 5) {
    case 0:
      got[i * size] ^= 1;
      break;
    case 1:
      got[i * size + rng() % size] = static_cast<char>(rng());
      break;
    case 2:
      if (isFloatType(type))
        writeSpecial(type, rng(), &got[i * size]);
      break;
    default:
      if (isFloatType(type))
        moveToEdge(type, want, got, i, allowance, rng() % 2);
      break;
    }
  }
  // The reference's own specials: equal ones pass, others fail.
  if (isFloatType(type))
    for (size_t c = 0; c < 4; ++c) {
      size_t i = rng() % count;
      writeSpecial(type, rng(), &want[i * size]);
      if (rng() % 2)
        std::memcpy(&got[i * size], &want[i * size], size);
    }

  double scale = outputScale(type, want.data(), want.size());
  allowance = Allowance::of(type, -1, -1, scale);
  std::optional<Mismatch> onHost = compareElements(
      type, got.data(), want.data(), got.size(), allowance);
  DeviceCopy deviceGot(got), deviceWant(want);
  DeviceComparison &comparison = *setup().comparison;
  EXPECT_EQ(comparison.scale(type, deviceWant.get(), want.size(), nullptr),
            scale);
  std::optional<Mismatch> onDevice = comparison.compare(
      type, deviceGot.get(), deviceWant.get(), got.size(), allowance, nullptr);
  ASSERT_EQ(onDevice.has_value(), onHost.has_value());
  if (!onHost)
    return;
  EXPECT_EQ(onDevice->count, onHost->count);
  EXPECT_EQ(onDevice->elements, onHost->elements);
  EXPECT_EQ(onDevice->worst, onHost->worst);
  EXPECT_EQ(onDevice->describe(), onHost->describe());
}

TEST(CudaCompareTest, AgreesWithTheHostOnEveryType) {
  REQUIRE_COMPARISON();
  // One element, one block, a partial block, many blocks, more elements
  // than one grid covers (kMaxBlocks blocks of 256 threads).
  for (ScalarType type :
       {ScalarType::F16, ScalarType::BF16, ScalarType::F32, ScalarType::F64,
        ScalarType::I8, ScalarType::I16, ScalarType::I32, ScalarType::I64})
    for (size_t count : {size_t(1), size_t(256), size_t(1000), size_t(65537),
                         size_t(3) << 20})
      for (uint32_t seed : {1u, 2u, 3u})
        expectAgreement(type, count, seed);
}

TEST(CudaCompareTest, IdenticalOutputsPassAndTheScaleIsAtLeastOne) {
  REQUIRE_COMPARISON();
  std::vector<float> values = {0.25f, -0.5f, NAN, INFINITY};
  std::string bytes(reinterpret_cast<const char *>(values.data()),
                    values.size() * sizeof(float));
  DeviceCopy a(bytes), b(bytes);
  DeviceComparison &comparison = *setup().comparison;
  EXPECT_EQ(comparison.scale(ScalarType::F32, a.get(), bytes.size(), nullptr),
            1.0);
  EXPECT_FALSE(comparison.compare(ScalarType::F32, a.get(), b.get(),
                                  bytes.size(),
                                  Allowance::of(ScalarType::F32, 0, 0, 1),
                                  nullptr));
}

} // namespace
} // namespace tuna::gpu
