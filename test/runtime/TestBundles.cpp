//===- TestBundles.cpp - Bundles built in memory for the tests ------------===//

#include "TestBundles.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <dirent.h>
#include <unistd.h>

namespace tuna::test {

const char *kernelLibraryPath() { return TUNA_TEST_KERNELS_PATH; }

namespace {
std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}
} // namespace

const std::string &kernelLibrary() {
  static const std::string bytes = readFile(TUNA_TEST_KERNELS_PATH);
  return bytes;
}

const std::string &faultyKernelLibrary() {
  static const std::string bytes = readFile(TUNA_TEST_FAULTY_KERNELS_PATH);
  return bytes;
}

ExprNode dim(int position) { return {ExprNode::Op::Dim, position}; }
ExprNode constant(int64_t value) { return {ExprNode::Op::Const, value}; }
ExprNode op(ExprNode::Op op) { return {op, 0}; }

Variant axpyVariant(const std::string &symbol, int64_t work) {
  Variant variant;
  variant.name = symbol;
  variant.config = {{"WORK", work}};
  VariantCode code;
  code.object = 0;
  code.symbol = symbol;
  variant.code.push_back(code);
  return variant;
}

Kernel axpyKernel() {
  Kernel kernel;
  kernel.name = "axpy";
  kernel.sourceHash = "0123456789abcdef";
  ArgSpec memref;
  memref.kind = ArgSpec::Kind::MemRef;
  memref.type = ScalarType::F32;
  memref.rank = 1;
  ArgSpec written = memref;
  written.written = true;
  ArgSpec alpha;
  alpha.type = ScalarType::F32;
  ArgSpec n;
  n.type = ScalarType::Index;
  kernel.args = {memref, written, alpha, n};
  kernel.params = {"WORK"};
  KeySpec key;
  key.arg = 3;
  kernel.key = {key};
  kernel.variants = {axpyVariant("axpy_work4", 4), axpyVariant("axpy_work0", 0),
                     axpyVariant("axpy_work64", 64),
                     axpyVariant("axpy_wrong", -1)};
  kernel.defaultVariant = 0;
  return kernel;
}

Bundle axpyBundle() {
  Bundle bundle;
  bundle.tunaVersion = "test";
  Object object;
  object.target = "host";
  object.format = "elf-so";
  object.data = kernelLibrary();
  bundle.objects.push_back(object);
  bundle.kernels.push_back(axpyKernel());
  return bundle;
}

TempDir::TempDir() {
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/tuna-test-XXXXXX";
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error("cannot create a directory like " + pattern);
  path = pattern;
}

TempDir::~TempDir() {
  for (const std::string &file : files())
    std::remove((path + "/" + file).c_str());
  ::rmdir(path.c_str());
}

std::vector<std::string> TempDir::files() const {
  std::vector<std::string> names;
  if (DIR *dir = ::opendir(path.c_str())) {
    while (dirent *entry = ::readdir(dir))
      if (entry->d_name[0] != '.')
        names.push_back(entry->d_name);
    ::closedir(dir);
  }
  return names;
}

} // namespace tuna::test
