//===- BundleTest.cpp - Bundle files: round trip and bad input ------------===//

#include "TestBundles.h"

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Error.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

using namespace tuna;
using namespace tuna::test;

namespace {

/// A small bundle touching every manifest field.
Bundle richBundle() {
  Bundle bundle = axpyBundle();
  bundle.objects[0].data = "host object bytes";
  Object ptx;
  ptx.target = "nvptx:sm_90";
  ptx.format = "ptx";
  ptx.triple = "nvptx64-nvidia-cuda";
  ptx.data = std::string("ptx\0with\0zeros", 14);
  ptx.gridDependency = true;
  ptx.moduleState = true;
  bundle.objects.push_back(ptx);
  Kernel &kernel = bundle.kernels[0];
  KeySpec bins;
  bins.arg = 0;
  bins.dim = 0;
  bins.bucket = Bucket::Bins;
  bins.bins = {16, 256, 4096};
  kernel.key.push_back(bins);
  Variant &variant = kernel.variants[1];
  variant.grid[0] = {dim(0), constant(127), op(ExprNode::Op::Add),
                     constant(128), op(ExprNode::Op::FloorDiv)};
  variant.block[0] = {constant(128)};
  variant.sharedMemBytes = {dim(1), constant(-4), op(ExprNode::Op::Mul)};
  variant.constraints.push_back(
      {{dim(0), constant(4), op(ExprNode::Op::Mod)}, true});
  VariantCode code;
  code.object = 1;
  code.symbol = "axpy_work0_ptx";
  code.resources = {32, 1024, 0, 8};
  variant.code.push_back(code);
  variant.minBlocks = 2;
  return bundle;
}

void expectBadBundle(std::string_view bytes, const std::string &fragment) {
  try {
    readBundle(bytes, "test.tuna");
    FAIL() << "expected an error containing '" << fragment << "'";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::BadBundle) << e.what();
    std::string message = e.what();
    EXPECT_EQ(message.rfind("test.tuna: ", 0), 0u) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

/// richBundle with a tensor map of argument 0 that variant 1 takes.
Bundle tensorMapBundle() {
  Bundle bundle = richBundle();
  Kernel &kernel = bundle.kernels[0];
  kernel.tensorMaps.push_back({/*arg=*/0, /*l2PromotionBytes=*/128,
                               /*oobFillNaN=*/true});
  VariantTensorMap map;
  map.map = 0;
  map.box = {{dim(0), constant(64), op(ExprNode::Op::Mod)}};
  map.swizzleBytes = 64;
  kernel.variants[1].tensorMaps.push_back(map);
  return bundle;
}

} // namespace

TEST(BundleTest, RoundTripKeepsEveryField) {
  Bundle original = richBundle();
  std::string bytes = writeBundle(original);
  Bundle read = readBundle(bytes, "test.tuna");
  EXPECT_EQ(writeBundle(read), bytes);

  ASSERT_EQ(read.objects.size(), 2u);
  EXPECT_EQ(read.objects[1].data, original.objects[1].data);
  EXPECT_EQ(read.objects[1].triple, "nvptx64-nvidia-cuda");
  EXPECT_FALSE(read.objects[0].gridDependency);
  EXPECT_TRUE(read.objects[1].gridDependency);
  EXPECT_FALSE(read.objects[0].moduleState);
  EXPECT_TRUE(read.objects[1].moduleState);
  EXPECT_EQ(read.tunaVersion, "test");
  const Kernel &kernel = read.kernels.at(0);
  EXPECT_EQ(kernel.name, "axpy");
  EXPECT_EQ(kernel.sourceHash, "0123456789abcdef");
  ASSERT_EQ(kernel.args.size(), 4u);
  EXPECT_EQ(kernel.args[1].kind, ArgSpec::Kind::MemRef);
  EXPECT_TRUE(kernel.args[1].written);
  EXPECT_EQ(kernel.args[3].type, ScalarType::Index);
  ASSERT_EQ(kernel.key.size(), 2u);
  EXPECT_EQ(kernel.key[1].bucket, Bucket::Bins);
  EXPECT_EQ(kernel.key[1].bins, (std::vector<int64_t>{16, 256, 4096}));
  const Variant &variant = kernel.variants.at(1);
  EXPECT_EQ(variant.config,
            (std::vector<std::pair<std::string, int64_t>>{{"WORK", 0}}));
  ASSERT_EQ(variant.grid[0].size(), 5u);
  EXPECT_EQ(variant.grid[0][4].op, ExprNode::Op::FloorDiv);
  EXPECT_EQ(variant.sharedMemBytes[1].value, -4);
  ASSERT_EQ(variant.constraints.size(), 1u);
  EXPECT_TRUE(variant.constraints[0].isEquality);
  ASSERT_EQ(variant.code.size(), 2u);
  EXPECT_EQ(variant.code[1].resources.registers, 32);
  EXPECT_EQ(variant.code[1].resources.spillBytes, 8);
  EXPECT_EQ(variant.minBlocks, 2);
  EXPECT_EQ(kernel.variants.at(0).minBlocks, 1);
  // One block a multiprocessor, the default, is not written.
  EXPECT_EQ(bytes.find("\"minBlocks\": 1"), std::string::npos);
  EXPECT_NE(bytes.find("\"minBlocks\": 2"), std::string::npos);
}

// A bundle with tensor maps is format version 2 (an older runtime would
// launch a variant without its hidden parameters); one without stays
// version 1 and has no "tensorMaps" field.
TEST(BundleTest, TensorMapsRoundTripInVersion2) {
  std::string plain = writeBundle(richBundle());
  EXPECT_EQ(plain[8], 1);
  EXPECT_EQ(plain.find("tensorMaps"), std::string::npos);

  std::string bytes = writeBundle(tensorMapBundle());
  EXPECT_EQ(bytes[8], 2);
  Bundle read = readBundle(bytes, "test.tuna");
  EXPECT_EQ(writeBundle(read), bytes);
  const Kernel &kernel = read.kernels.at(0);
  ASSERT_EQ(kernel.tensorMaps.size(), 1u);
  EXPECT_EQ(kernel.tensorMaps[0].arg, 0);
  EXPECT_EQ(kernel.tensorMaps[0].l2PromotionBytes, 128);
  EXPECT_TRUE(kernel.tensorMaps[0].oobFillNaN);
  EXPECT_TRUE(kernel.variants[0].tensorMaps.empty());
  ASSERT_EQ(kernel.variants[1].tensorMaps.size(), 1u);
  const VariantTensorMap &map = kernel.variants[1].tensorMaps[0];
  EXPECT_EQ(map.map, 0);
  EXPECT_EQ(map.swizzleBytes, 64);
  ASSERT_EQ(map.box.size(), 1u);
  ASSERT_EQ(map.box[0].size(), 3u);
  EXPECT_EQ(map.box[0][1].value, 64);
  EXPECT_EQ(map.box[0][2].op, ExprNode::Op::Mod);
}

TEST(BundleTest, TensorMapShapesRoundTrip) {
  Bundle bundle = tensorMapBundle();
  Kernel &kernel = bundle.kernels[0];
  kernel.tensorMaps[0].shape = {
      {dim(0), constant(8), op(ExprNode::Op::FloorDiv)}, {constant(8)}};
  kernel.variants[1].tensorMaps[0].box.insert(
      kernel.variants[1].tensorMaps[0].box.begin(), {constant(8)});
  std::string bytes = writeBundle(bundle);
  EXPECT_NE(bytes.find("\"shape\""), std::string::npos);
  Bundle read = readBundle(bytes, "test.tuna");
  EXPECT_EQ(writeBundle(read), bytes);
  const TensorMapSpec &map = read.kernels[0].tensorMaps[0];
  ASSERT_EQ(map.shape.size(), 2u);
  ASSERT_EQ(map.shape[0].size(), 3u);
  EXPECT_EQ(map.shape[0][2].op, ExprNode::Op::FloorDiv);
  EXPECT_EQ(map.shape[1][0].value, 8);
  // Without a shape, no field: the bytes of a map of the memref itself.
  EXPECT_EQ(writeBundle(tensorMapBundle()).find("\"shape\""),
            std::string::npos);
}

TEST(BundleTest, TensorMapsNeedVersion2) {
  std::string bytes = writeBundle(tensorMapBundle());
  bytes[8] = 1; // The header is outside the manifest's hash.
  expectBadBundle(bytes, "the manifest has tensor maps, which need bundle "
                         "format version 2, but the header says version 1");
}

TEST(BundleTest, FileRoundTrip) {
  std::string path = ::testing::TempDir() + "/roundtrip.tuna";
  writeBundleFile(richBundle(), path);
  Bundle read = readBundleFile(path);
  EXPECT_EQ(writeBundle(read), writeBundle(richBundle()));
  std::remove(path.c_str());
}

TEST(BundleTest, MissingFileIsNamed) {
  try {
    readBundleFile("/nonexistent/kernels.tuna");
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::NotFound);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/kernels.tuna"),
              std::string::npos);
  }
}

TEST(BundleTest, EveryTruncationIsReported) {
  std::string bytes = writeBundle(richBundle());
  for (size_t size = 0; size < bytes.size(); ++size)
    EXPECT_THROW(
        readBundle(std::string_view(bytes).substr(0, size), "test.tuna"), Error)
        << "truncated to " << size;
  expectBadBundle(bytes.substr(0, 10), "truncated");
  expectBadBundle(bytes.substr(0, bytes.size() - 1), "truncated");
}

TEST(BundleTest, EveryBitFlipIsReported) {
  std::string bytes = writeBundle(richBundle());
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
      try {
        readBundle(damaged, "test.tuna");
        ADD_FAILURE() << "flip of bit " << bit << " of byte " << i
                      << " was not detected";
      } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::BadBundle);
      }
    }
  }
}

TEST(BundleTest, ManyObjectsAreCheckedAndReadWhole) {
  // Enough objects for the parallel hash check and copy to use threads.
  Bundle bundle = axpyBundle();
  for (int k = 0; k < 200; ++k) {
    Object object = bundle.objects[0];
    object.data = std::string(1000 + k, static_cast<char>(k));
    bundle.objects.push_back(object);
  }
  std::string bytes = writeBundle(bundle);
  Bundle read = readBundle(bytes, "test.tuna");
  ASSERT_EQ(read.objects.size(), bundle.objects.size());
  for (size_t i = 0; i < read.objects.size(); ++i)
    EXPECT_EQ(read.objects[i].data, bundle.objects[i].data) << i;
  // Two damaged objects: the first is named.
  for (int k : {150, 40}) {
    size_t at = bytes.find(std::string(1000 + k, static_cast<char>(k)));
    ASSERT_NE(at, std::string::npos);
    bytes[at + 500] ^= 1;
  }
  expectBadBundle(bytes, "damaged: object 41 (host elf-so) does not match its "
                         "content hash");
}

TEST(BundleTest, GarbageIsReported) {
  std::mt19937 random(42);
  for (int round = 0; round < 200; ++round) {
    std::string garbage(random() % 512, '\0');
    for (char &c : garbage)
      c = static_cast<char>(random());
    if (round % 2)
      garbage.replace(0, std::min<size_t>(8, garbage.size()), "TUNABNDL");
    EXPECT_THROW(readBundle(garbage, "test.tuna"), Error);
  }
}

TEST(BundleTest, ForeignNewerAndPaddedFilesSayWhy) {
  std::string bytes = writeBundle(richBundle());
  expectBadBundle("\x7f"
                  "ELF\x02\x01\x01",
                  "not a Tuna bundle");
  expectBadBundle("", "truncated");

  std::string newer = bytes;
  newer[8] = 3;
  expectBadBundle(newer, "newer Tuna (bundle format version 3");

  expectBadBundle(bytes + "extra", "unexpected bytes after the last object");

  std::string damagedObject = bytes;
  damagedObject[damagedObject.size() - 3] ^= 1;
  expectBadBundle(damagedObject, "object 1 (nvptx:sm_90 ptx)");

  std::string damagedManifest = bytes;
  damagedManifest[40] ^= 1;
  expectBadBundle(damagedManifest, "manifest does not match");
}

//===----------------------------------------------------------------------===//
// Semantic validation
//===----------------------------------------------------------------------===//

namespace {
void expectInvalid(const Bundle &bundle, const std::string &fragment) {
  try {
    validateBundle(bundle, "test.tuna");
    FAIL() << "expected an error containing '" << fragment << "'";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::BadBundle);
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
        << e.what();
  }
}
} // namespace

TEST(BundleValidationTest, AcceptsTheTestBundle) {
  EXPECT_NO_THROW(validateBundle(richBundle(), "test.tuna"));
}

// The compiler, built without exceptions, writes bundles through
// tryWriteBundle: the same bytes, and validateBundle's message as a value.
TEST(BundleValidationTest, TryWriteBundleReportsWithoutThrowing) {
  std::string bytes, error;
  EXPECT_TRUE(tryWriteBundle(richBundle(), "test.tuna", bytes, error));
  EXPECT_EQ(bytes, writeBundle(richBundle()));
  EXPECT_EQ(error, "");

  Bundle bundle = richBundle();
  bundle.kernels[0].defaultVariant = 4;
  bytes.clear();
  EXPECT_FALSE(tryWriteBundle(bundle, "test.tuna", bytes, error));
  EXPECT_EQ(bytes, "");
  EXPECT_NE(error.find("test.tuna"), std::string::npos) << error;
  EXPECT_NE(error.find("default variant 4 is out of range (4 variants)"),
            std::string::npos)
      << error;
}

TEST(BundleValidationTest, KeyArgumentOutOfRange) {
  Bundle bundle = richBundle();
  bundle.kernels[0].key[0].arg = 9;
  expectInvalid(bundle, "kernel 'axpy' key 0 reads argument 9");
}

TEST(BundleValidationTest, KeyDimensionBeyondRank) {
  Bundle bundle = richBundle();
  bundle.kernels[0].key[1].dim = 1;
  expectInvalid(bundle, "reads dimension 1 of argument 0, a memref of rank 1");
}

TEST(BundleValidationTest, KeyValueOfAMemref) {
  Bundle bundle = richBundle();
  bundle.kernels[0].key[1].dim = -1;
  expectInvalid(bundle, "not an integer scalar");
}

TEST(BundleValidationTest, BinsMustAscend) {
  Bundle bundle = richBundle();
  bundle.kernels[0].key[1].bins = {16, 16};
  expectInvalid(bundle, "strictly ascending");
}

TEST(BundleValidationTest, DefaultVariantOutOfRange) {
  Bundle bundle = richBundle();
  bundle.kernels[0].defaultVariant = 4;
  expectInvalid(bundle, "default variant 4 is out of range (4 variants)");
}

TEST(BundleValidationTest, ObjectIndexOutOfRange) {
  Bundle bundle = richBundle();
  bundle.kernels[0].variants[2].code[0].object = 7;
  expectInvalid(bundle, "variant 'axpy_work64' refers to object 7");
}

TEST(BundleValidationTest, MalformedExpressions) {
  Bundle bundle = richBundle();
  bundle.kernels[0].variants[0].grid[1] = {dim(0), op(ExprNode::Op::Add)};
  expectInvalid(bundle, "grid.y: malformed expression: token 1");

  bundle = richBundle();
  bundle.kernels[0].variants[0].block[0] = {dim(0), constant(1)};
  expectInvalid(bundle, "leaves 2 values");

  bundle = richBundle();
  bundle.kernels[0].variants[0].sharedMemBytes = {dim(2)};
  expectInvalid(bundle, "reads d2 but the key has 2 value(s)");
}

TEST(BundleValidationTest, MinBlocksIsPositive) {
  Bundle bundle = richBundle();
  bundle.kernels[0].variants[1].minBlocks = 0;
  expectInvalid(bundle, "variant 'axpy_work0' asks for 0 blocks a "
                        "multiprocessor (minBlocks); at least 1");
}

TEST(BundleValidationTest, ConfigurationFollowsParameters) {
  Bundle bundle = richBundle();
  bundle.kernels[0].variants[3].config = {{"BLOCK", 1}};
  expectInvalid(bundle, "configuration entry 0 is 'BLOCK', expected "
                        "parameter 'WORK'");
}

TEST(BundleValidationTest, RankLimits) {
  Bundle bundle = richBundle();
  bundle.kernels[0].args[0].rank = 9;
  expectInvalid(bundle, "memref rank 9 is outside [0, 8]");
}

TEST(BundleValidationTest, DuplicateKernels) {
  Bundle bundle = richBundle();
  bundle.kernels.push_back(bundle.kernels[0]);
  expectInvalid(bundle, "kernel 'axpy' is defined twice");
}

namespace {
/// `bytes` (a bundle) with the manifest text `needle` replaced by
/// `replacement` of the same size and the header's hash made anew.
std::string editManifest(std::string bytes, const std::string &needle,
                         const std::string &replacement) {
  EXPECT_EQ(needle.size(), replacement.size());
  size_t at = bytes.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  bytes.replace(at, needle.size(), replacement);
  uint32_t manifestSize = 0;
  for (int i = 0; i < 4; ++i)
    manifestSize |= uint32_t(static_cast<unsigned char>(bytes[12 + i]))
                    << (8 * i);
  uint64_t hash = fnv1a64(std::string_view(bytes).substr(24, manifestSize));
  for (int i = 0; i < 8; ++i)
    bytes[16 + i] = static_cast<char>((hash >> (8 * i)) & 0xff);
  return bytes;
}
} // namespace

TEST(BundleValidationTest, ManifestTypeErrorsNameThePath) {
  // A syntactically valid bundle whose manifest has a wrong field type.
  std::string bytes = editManifest(writeBundle(richBundle()),
                                   "\"defaultVariant\": 0",
                                   "\"defaultVariant\":[]");
  expectBadBundle(bytes, "kernels[0].defaultVariant: expected an integer");
}

// Bundles made before objects said whether their kernels wait for the grid
// before them: such objects are launched as before.
TEST(BundleValidationTest, AnObjectWithoutGridDependencyDoesNotWait) {
  std::string field = "\"grid_dependency\": true,";
  std::string bytes = editManifest(writeBundle(richBundle()), field,
                                   std::string(field.size(), ' '));
  Bundle read = readBundle(bytes, "test.tuna");
  EXPECT_FALSE(read.objects[1].gridDependency);
  expectBadBundle(editManifest(writeBundle(richBundle()),
                               "\"grid_dependency\": true",
                               "\"grid_dependency\": 1   "),
                  "objects[1].grid_dependency: expected true or false");
}

// Bundles made before objects said whether their kernels keep state in the
// module: such objects' launches are not ordered.
TEST(BundleValidationTest, AnObjectWithoutModuleStateIsNotOrdered) {
  std::string field = "\"module_state\": true,";
  std::string bytes = editManifest(writeBundle(richBundle()), field,
                                   std::string(field.size(), ' '));
  Bundle read = readBundle(bytes, "test.tuna");
  EXPECT_FALSE(read.objects[1].moduleState);
  expectBadBundle(editManifest(writeBundle(richBundle()),
                               "\"module_state\": true",
                               "\"module_state\": \"on\""),
                  "objects[1].module_state: expected true or false");
}

TEST(BundleValidationTest, AcceptsTensorMaps) {
  EXPECT_NO_THROW(validateBundle(tensorMapBundle(), "test.tuna"));
}

TEST(BundleValidationTest, TensorMapArgument) {
  Bundle bundle = tensorMapBundle();
  bundle.kernels[0].tensorMaps[0].arg = 9;
  expectInvalid(bundle, "kernel 'axpy' tensor map 0 describes argument 9, "
                        "but the kernel has 4");
  bundle.kernels[0].tensorMaps[0].arg = 2; // The f32 scalar.
  expectInvalid(bundle, "kernel 'axpy' tensor map 0 describes argument 2, "
                        "which is not a memref of i8, i32, i64, f16, bf16, "
                        "f32 or f64");
  bundle = tensorMapBundle();
  bundle.kernels[0].args[0].type = ScalarType::I16;
  expectInvalid(bundle, "describes argument 0, which is not a memref of");
  bundle = tensorMapBundle();
  bundle.kernels[0].args[0].rank = 6;
  expectInvalid(bundle, "kernel 'axpy' tensor map 0 describes argument 0 of "
                        "rank 6; TMA describes 1 to 5 dimensions");
}

TEST(BundleValidationTest, TensorMapSettings) {
  Bundle bundle = tensorMapBundle();
  bundle.kernels[0].tensorMaps[0].l2PromotionBytes = 32;
  expectInvalid(bundle, "kernel 'axpy' tensor map 0: L2 promotion of 32 "
                        "bytes; expected 0, 64, 128 or 256");
  bundle = tensorMapBundle();
  bundle.kernels[0].args[0].type = ScalarType::I32;
  expectInvalid(bundle, "tensor map 0: a NaN fill needs floating-point "
                        "elements, argument 0 has i32");
  bundle = tensorMapBundle();
  bundle.kernels[0].variants[1].tensorMaps[0].swizzleBytes = 16;
  expectInvalid(bundle, "tensor map 0: swizzle of 16 bytes; expected 0, 32, "
                        "64 or 128");
}

TEST(BundleValidationTest, TensorMapShapes) {
  Bundle bundle = tensorMapBundle();
  Kernel &kernel = bundle.kernels[0];
  kernel.tensorMaps[0].shape = {{dim(0)}, {constant(8)}};
  std::string variant =
      "kernel 'axpy' variant '" + kernel.variants[1].name + "' tensor map 0";
  expectInvalid(bundle,
                variant + " has a box of 1 entries for a tensor of rank 2");
  kernel.tensorMaps[0].shape = {{dim(9)}};
  expectInvalid(bundle, "kernel 'axpy' tensor map 0 shape[0]: malformed "
                        "expression");
  kernel.tensorMaps[0].shape.assign(6, {constant(2)});
  expectInvalid(bundle, "kernel 'axpy' tensor map 0 has a shape of 6 sizes; "
                        "TMA describes 1 to 5 dimensions");
  bundle = tensorMapBundle();
  bundle.kernels[0].args[0].rank = 2;
  bundle.kernels[0].tensorMaps[0].shape = {{dim(0)}};
  expectInvalid(bundle, "kernel 'axpy' tensor map 0 views argument 0 of "
                        "rank 2 as a shape; a shape views a rank-1 memref");
}

TEST(BundleValidationTest, TheDefaultTakesNoTensorMap) {
  Bundle bundle = tensorMapBundle();
  Kernel &kernel = bundle.kernels[0];
  kernel.defaultVariant = 1;
  expectInvalid(bundle, "kernel 'axpy': the default variant '" +
                            kernel.variants[1].name +
                            "' takes a tensor map; the default must take none");
}

TEST(BundleValidationTest, VariantTensorMaps) {
  Bundle bundle = tensorMapBundle();
  std::string where = "kernel 'axpy' variant '" +
                      bundle.kernels[0].variants[1].name + "' tensor map 0";
  bundle.kernels[0].variants[1].tensorMaps[0].map = 1;
  expectInvalid(bundle, where + " takes map 1, but the kernel has 1");
  bundle = tensorMapBundle();
  bundle.kernels[0].variants[1].tensorMaps[0].box.push_back({constant(8)});
  expectInvalid(bundle,
                where + " has a box of 2 entries for a tensor of rank 1");
  bundle = tensorMapBundle();
  bundle.kernels[0].variants[1].tensorMaps[0].box[0] = {constant(257)};
  expectInvalid(bundle, where + " box[0] is 257; TMA takes 1 to 256");
  bundle.kernels[0].variants[1].tensorMaps[0].box[0] = {constant(0)};
  expectInvalid(bundle, where + " box[0] is 0; TMA takes 1 to 256");
  bundle.kernels[0].variants[1].tensorMaps[0].box[0] = {
      op(ExprNode::Op::Add)};
  expectInvalid(bundle, where + " box[0]: malformed expression");
  bundle.kernels[0].variants[1].tensorMaps[0].box[0] = {dim(5)};
  expectInvalid(bundle, where + " box[0]: malformed expression");
  bundle = tensorMapBundle();
  Variant &variant = bundle.kernels[0].variants[1];
  variant.tensorMaps.assign(5, variant.tensorMaps[0]);
  expectInvalid(bundle, "kernel 'axpy' variant '" + variant.name +
                            "' takes 5 tensor maps; the runtime passes at "
                            "most 4");
}
