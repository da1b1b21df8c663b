//===- ScaleBundleTest.cpp - The nvcc-made scale bundle, on the CPU -------===//
//
// Checks what the GPU tests and tuna-gpu-bench build on, where no GPU is
// needed: the PTX has every variant's entry, and the bundle is valid and
// survives the file format.
//
//===----------------------------------------------------------------------===//

#include "ScaleBundle.h"

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Error.h"

#include <gtest/gtest.h>

using namespace tuna;

TEST(ScaleBundleTest, DescribesEveryPtxEntry) {
  std::string ptx;
  try {
    ptx = gpu::readScalePtx();
  } catch (const Error &e) {
    GTEST_SKIP() << e.what();
  }
  EXPECT_EQ(gpu::ptxTarget(ptx).rfind("nvptx:sm_", 0), 0u);
  Bundle bundle = gpu::makeScaleBundle(ptx);
  validateBundle(bundle, "scale bundle");
  ASSERT_EQ(bundle.kernels.size(), 1u);
  const Kernel &kernel = bundle.kernels[0];
  EXPECT_EQ(kernel.variants.size(), 15u);
  EXPECT_EQ(kernel.variants[kernel.defaultVariant].name, "scale_b256_e1");
  for (const Variant &variant : kernel.variants)
    EXPECT_NE(ptx.find(".entry " + variant.code.at(0).symbol + "("),
              std::string::npos)
        << variant.name;

  Bundle copy = readBundle(writeBundle(bundle), "round trip");
  ASSERT_EQ(copy.kernels.size(), 1u);
  EXPECT_EQ(copy.kernels[0].variants.size(), 15u);
  EXPECT_EQ(copy.objects.at(0).data, ptx);
}
