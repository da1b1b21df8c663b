//===- ArgumentTest.cpp - Checking launch arguments against the ABI -------===//

#include "TestBundles.h"

#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

using namespace tuna;
using namespace tuna::test;

namespace {
class ArgumentTest : public ::testing::Test {
protected:
  ArgumentTest()
      : module(Module::fromBundle(axpyBundle(), Device::host(), "axpy.tuna",
                                  modeOff())),
        kernel(module.kernel("axpy")), x(16, 1.0f), y(16, 0.0f) {}

  static Options modeOff() {
    Options options;
    options.mode = TuneMode::Off;
    return options;
  }

  template <typename... Args> std::string errorOf(const Args &...args) {
    try {
      kernel.launch(nullptr, args...);
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      return e.what();
    }
    return "no error";
  }

  Module module;
  TunedKernel &kernel;
  std::vector<float> x, y;
};
} // namespace

TEST_F(ArgumentTest, AcceptsMatchingArguments) {
  kernel.launch(nullptr, memref(x.data(), {16}), memref(y.data(), {16}), 2.0f,
                int64_t(16));
  EXPECT_EQ(y, std::vector<float>(16, 2.0f));
  // A double for an f32 scalar and an int for an index convert.
  kernel.launch(nullptr, memref(x.data(), {16}), memref(y.data(), {16}), 1.0,
                16);
  EXPECT_EQ(y, std::vector<float>(16, 3.0f));
}

TEST_F(ArgumentTest, WrongCount) {
  EXPECT_EQ(errorOf(memref(x.data(), {16})),
            "kernel 'axpy' in 'axpy.tuna' takes 4 arguments, got 1");
}

TEST_F(ArgumentTest, ScalarForMemref) {
  EXPECT_EQ(errorOf(memref(x.data(), {16}), 1.0f, 2.0f, 16),
            "kernel 'axpy' in 'axpy.tuna' argument 1: expected a rank-1 "
            "memref of f32, got an f32 scalar");
}

TEST_F(ArgumentTest, WrongElementType) {
  std::vector<double> wide(16);
  EXPECT_EQ(
      errorOf(memref(wide.data(), {16}), memref(y.data(), {16}), 2.0f, 16),
      "kernel 'axpy' in 'axpy.tuna' argument 0: expected a rank-1 "
      "memref of f32, got a rank-1 memref of f64");
}

TEST_F(ArgumentTest, WrongRank) {
  EXPECT_EQ(errorOf(memref(x.data(), {4, 4}), memref(y.data(), {16}), 2.0f, 16),
            "kernel 'axpy' in 'axpy.tuna' argument 0: expected a rank-1 "
            "memref of f32, got a rank-2 memref of f32");
}

TEST_F(ArgumentTest, IntegerForFloat) {
  EXPECT_EQ(errorOf(memref(x.data(), {16}), memref(y.data(), {16}), 2, 16),
            "kernel 'axpy' in 'axpy.tuna' argument 2: expected an f32 "
            "scalar, got an i32 scalar");
}

TEST_F(ArgumentTest, FloatForIndex) {
  EXPECT_EQ(
      errorOf(memref(x.data(), {16}), memref(y.data(), {16}), 2.0f, 16.0f),
      "kernel 'axpy' in 'axpy.tuna' argument 3: expected an index "
      "scalar, got an f32 scalar");
}

TEST_F(ArgumentTest, NegativeSize) {
  EXPECT_EQ(errorOf(memref(x.data(), {-1}), memref(y.data(), {16}), 2.0f, 16),
            "kernel 'axpy' in 'axpy.tuna' argument 0: size -1 of dimension "
            "0 is negative");
}

TEST_F(ArgumentTest, UntypedLaunch) {
  ArgValue args[] = {toArg(memref(x.data(), {16})),
                     toArg(memref(y.data(), {16})), toArg(2.0f),
                     toArg(int64_t(16))};
  kernel.launch(nullptr, args, 4);
  EXPECT_EQ(y, std::vector<float>(16, 2.0f));
  EXPECT_EQ(kernel.signature(args, 4), std::vector<int64_t>{16});
}

TEST(MemRefTest, RowMajorStrides) {
  float data[24];
  MemRefView view = memref(data, {2, 3, 4});
  EXPECT_EQ(view.rank, 3);
  EXPECT_EQ(view.type, ScalarType::F32);
  EXPECT_EQ(view.strides[0], 12);
  EXPECT_EQ(view.strides[1], 4);
  EXPECT_EQ(view.strides[2], 1);
  EXPECT_EQ(view.aligned, data);
  EXPECT_THROW(memref(data, {1, 1, 1, 1, 1, 1, 1, 1, 1}), Error);
}

TEST(MemRefTest, IntegerRanges) {
  Kernel kernel;
  kernel.name = "narrow";
  ArgSpec i8;
  i8.type = ScalarType::I8;
  kernel.args = {i8};
  kernel.params = {};
  Variant variant;
  variant.name = "narrow_v";
  VariantCode code;
  code.object = 0;
  code.symbol = "axpy_work0";
  variant.code.push_back(code);
  kernel.variants = {variant};
  Bundle bundle = axpyBundle();
  bundle.kernels = {kernel};
  Options options;
  options.mode = TuneMode::Off;
  Module module =
      Module::fromBundle(bundle, Device::host(), "narrow.tuna", options);
  try {
    module.kernel("narrow").launch(nullptr, 300);
    FAIL();
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "kernel 'narrow' in 'narrow.tuna' argument 0: "
                           "expected an i8 scalar, got an i32 scalar of value "
                           "300, out of range");
  }
}
