//===- HostBackendTest.cpp - Loading host objects from memory -------------===//

#include "TestBundles.h"

#include "tuna/runtime/Backend.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace tuna;

namespace {
Object hostObject(const char *path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  Object object;
  object.target = "host";
  object.format = "elf-so";
  object.data = bytes.str();
  return object;
}

int identity(Backend &backend, ModuleHandle module) {
  auto function = reinterpret_cast<int (*)()>(
      backend.getFunction(module, "tuna_test_identity", "test"));
  return function();
}
} // namespace

TEST(HostBackendTest, SameSymbolsInDifferentObjectsStayApart) {
  std::unique_ptr<Backend> backend = makeHostBackend();
  Object a = hostObject(TUNA_TEST_IDENTITY_A_PATH);
  Object b = hostObject(TUNA_TEST_IDENTITY_B_PATH);
  ModuleHandle first = backend->loadModule(a, "a");
  ModuleHandle second = backend->loadModule(b, "b");
  EXPECT_EQ(identity(*backend, first), 1);
  EXPECT_EQ(identity(*backend, second), 2);
  backend->unloadModule(first);
  backend->unloadModule(second);
  // Reloading in the other order reuses descriptor numbers.
  second = backend->loadModule(b, "b");
  first = backend->loadModule(a, "a");
  EXPECT_EQ(identity(*backend, first), 1);
  EXPECT_EQ(identity(*backend, second), 2);
  backend->unloadModule(first);
  backend->unloadModule(second);
}

TEST(HostBackendTest, ChoosesOnlyHostSharedLibraries) {
  std::unique_ptr<Backend> backend = makeHostBackend();
  Object object;
  object.target = "host";
  object.format = "elf-so";
  EXPECT_EQ(backend->objectScore(object), 1);
  object.triple = "aarch64-unknown-linux-gnu";
#if defined(__x86_64__)
  EXPECT_EQ(backend->objectScore(object), -1);
#endif
  object.triple.clear();
  object.format = "ptx";
  EXPECT_EQ(backend->objectScore(object), -1);
  EXPECT_EQ(backend->info().platform, "host");
  EXPECT_FALSE(backend->info().fingerprint.empty());
}

TEST(HostBackendTest, ErrorsNameTheUser) {
  std::unique_ptr<Backend> backend = makeHostBackend();
  Object junk;
  junk.target = "host";
  junk.format = "elf-so";
  junk.data = "not an ELF file";
  try {
    backend->loadModule(junk, "kernel 'k' variant 'v'");
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(
        std::string(e.what()).rfind(
            "kernel 'k' variant 'v': dlopen of the host object failed", 0),
        0u)
        << e.what();
  }
  ModuleHandle module = backend->loadModule(
      hostObject(TUNA_TEST_IDENTITY_A_PATH), "kernel 'k' variant 'v'");
  EXPECT_THROW(backend->getFunction(module, "missing", "kernel 'k'"), Error);
  backend->unloadModule(module);
}
