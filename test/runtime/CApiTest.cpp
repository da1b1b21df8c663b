//===- CApiTest.cpp - The C API -------------------------------------------===//

#include "TestBundles.h"

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/tuna.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

using namespace tuna::test;

namespace {
TunaArg vector(float *data, int64_t n) {
  TunaArg arg = {};
  arg.kind = TUNA_ARG_MEMREF;
  arg.type = TUNA_F32;
  arg.memref.allocated = arg.memref.aligned = data;
  arg.memref.rank = 1;
  arg.memref.sizes[0] = n;
  arg.memref.strides[0] = 1;
  return arg;
}

TunaArg scalar(TunaType type, int64_t intValue, double floatValue) {
  TunaArg arg = {};
  arg.kind = TUNA_ARG_SCALAR;
  arg.type = type;
  arg.intValue = intValue;
  arg.floatValue = floatValue;
  return arg;
}
} // namespace

TEST(CApiTest, LoadsAndLaunches) {
  ::setenv("TUNA_AUTOTUNE", "0", 1);
  std::string bytes = tuna::writeBundle(axpyBundle());
  TunaModule *module = nullptr;
  ASSERT_EQ(tunaModuleLoadMemory(bytes.data(), bytes.size(), "c.tuna",
                                 TUNA_DEVICE_HOST, 0, &module),
            TUNA_SUCCESS)
      << tunaLastError();
  ::unsetenv("TUNA_AUTOTUNE");
  TunaKernel *kernel = nullptr;
  ASSERT_EQ(tunaModuleGetKernel(module, "axpy", &kernel), TUNA_SUCCESS);

  char name[64], config[64];
  EXPECT_EQ(tunaKernelLastChoice(kernel, name, sizeof(name), config,
                                 sizeof(config)),
            TUNA_ERROR_NOT_FOUND);
  std::vector<float> x(8, 1.0f), y(8, 0.0f);
  TunaArg args[] = {vector(x.data(), 8), vector(y.data(), 8),
                    scalar(TUNA_F32, 0, 3.0), scalar(TUNA_INDEX, 8, 0)};
  EXPECT_EQ(tunaKernelLaunch(kernel, nullptr, args, 4), TUNA_SUCCESS)
      << tunaLastError();
  EXPECT_EQ(y, std::vector<float>(8, 3.0f));
  // Tuning is off: the default variant.
  ASSERT_EQ(tunaKernelLastChoice(kernel, name, sizeof(name), config,
                                 sizeof(config)),
            TUNA_SUCCESS)
      << tunaLastError();
  EXPECT_STREQ(name, "axpy_work4");
  EXPECT_STREQ(config, "WORK=4");
  // Cut to fit, or not asked for.
  char shortName[5];
  EXPECT_EQ(tunaKernelLastChoice(kernel, shortName, sizeof(shortName),
                                 nullptr, 0),
            TUNA_SUCCESS);
  EXPECT_STREQ(shortName, "axpy");
  EXPECT_EQ(tunaKernelLastChoice(kernel, nullptr, 4, nullptr, 0),
            TUNA_ERROR_INVALID_ARGUMENT);

  EXPECT_EQ(tunaKernelLaunch(kernel, nullptr, args, 3),
            TUNA_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tunaLastError(),
               "kernel 'axpy' in 'c.tuna' takes 4 arguments, got 3");
  args[2].type = 99;
  EXPECT_EQ(tunaKernelLaunch(kernel, nullptr, args, 4),
            TUNA_ERROR_INVALID_ARGUMENT);

  EXPECT_EQ(tunaModuleGetKernel(module, "nope", &kernel), TUNA_ERROR_NOT_FOUND);
  EXPECT_STREQ(tunaLastError(), "'c.tuna' has no kernel 'nope'; it has: axpy");
  tunaModuleFree(module);
}

TEST(CApiTest, ReportsBadFiles) {
  TunaModule *module = nullptr;
  EXPECT_EQ(
      tunaModuleLoadFile("/nonexistent.tuna", TUNA_DEVICE_HOST, 0, &module),
      TUNA_ERROR_NOT_FOUND);
  EXPECT_STREQ(tunaLastError(), "/nonexistent.tuna: cannot open bundle file");
  const char garbage[] = "definitely not a bundle";
  EXPECT_EQ(tunaModuleLoadMemory(garbage, sizeof(garbage), nullptr,
                                 TUNA_DEVICE_HOST, 0, &module),
            TUNA_ERROR_BAD_BUNDLE);
  EXPECT_EQ(std::string(tunaLastError()).rfind("<memory>: not a Tuna", 0), 0u);
  EXPECT_EQ(tunaModuleLoadFile(nullptr, TUNA_DEVICE_HOST, 0, &module),
            TUNA_ERROR_INVALID_ARGUMENT);
}
