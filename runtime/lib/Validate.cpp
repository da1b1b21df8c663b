//===- Validate.cpp - Semantic checks of a bundle -------------------------===//

#include "TensorMapRules.h"

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Error.h"
#include "tuna/runtime/Expr.h"
#include "tuna/runtime/MemRef.h"
#include "tuna/runtime/ScalarType.h"
#include "tuna/runtime/Signature.h"

#include <set>

namespace tuna {

namespace {
class Validator {
public:
  Validator(const Bundle &bundle, std::string_view origin)
      : bundle(bundle), origin(origin) {}

  void run() {
    for (size_t i = 0; i < bundle.objects.size(); ++i)
      if (bundle.objects[i].target.empty() || bundle.objects[i].format.empty())
        fail("object " + std::to_string(i) + " has no target or format");
    std::set<std::string> names;
    for (const Kernel &kernel : bundle.kernels) {
      if (!names.insert(kernel.name).second)
        fail("kernel '" + kernel.name + "' is defined twice");
      checkKernel(kernel);
    }
  }

private:
  [[noreturn]] void fail(const std::string &problem) const {
    throw Error(ErrorCode::BadBundle,
                std::string(origin) + ": invalid bundle: " + problem);
  }

  void checkKernel(const Kernel &kernel) const {
    std::string where = "kernel '" + kernel.name + "'";
    if (kernel.name.empty())
      fail("a kernel has no name");
    if (kernel.args.size() > static_cast<size_t>(kMaxArgs))
      fail(where + " has " + std::to_string(kernel.args.size()) +
           " arguments; the runtime handles at most " +
           std::to_string(kMaxArgs));
    for (size_t i = 0; i < kernel.args.size(); ++i)
      checkArg(kernel.args[i], where + " argument " + std::to_string(i));
    if (kernel.key.size() > static_cast<size_t>(kMaxKey))
      fail(where + " has " + std::to_string(kernel.key.size()) +
           " key components; the runtime handles at most " +
           std::to_string(kMaxKey));
    for (size_t i = 0; i < kernel.key.size(); ++i)
      checkKey(kernel, kernel.key[i], where + " key " + std::to_string(i));
    std::set<std::string> params;
    for (const std::string &param : kernel.params)
      if (param.empty() || !params.insert(param).second)
        fail(where + " has an empty or repeated parameter name '" + param +
             "'");
    if (kernel.variants.empty())
      fail(where + " has no variants");
    if (kernel.defaultVariant < 0 ||
        static_cast<size_t>(kernel.defaultVariant) >= kernel.variants.size())
      fail(where + ": default variant " +
           std::to_string(kernel.defaultVariant) + " is out of range (" +
           std::to_string(kernel.variants.size()) + " variants)");
    // It launches where no other can: where TMA cannot describe a buffer.
    if (!kernel.variants[kernel.defaultVariant].tensorMaps.empty())
      fail(where + ": the default variant '" +
           kernel.variants[kernel.defaultVariant].name +
           "' takes a tensor map; the default must take none");
    for (size_t i = 0; i < kernel.tensorMaps.size(); ++i)
      checkTensorMap(kernel, kernel.tensorMaps[i],
                     where + " tensor map " + std::to_string(i));
    for (const Variant &variant : kernel.variants)
      checkVariant(kernel, variant, where + " variant '" + variant.name + "'");
  }

  void checkTensorMap(const Kernel &kernel, const TensorMapSpec &map,
                      const std::string &where) const {
    if (map.arg < 0 || static_cast<size_t>(map.arg) >= kernel.args.size())
      fail(where + " describes argument " + std::to_string(map.arg) +
           ", but the kernel has " + std::to_string(kernel.args.size()));
    const ArgSpec &arg = kernel.args[map.arg];
    if (arg.kind != ArgSpec::Kind::MemRef || !isTensorMapElementType(arg.type))
      fail(where + " describes argument " + std::to_string(map.arg) +
           ", which is not a memref of i8, i32, i64, f16, bf16, f32 or f64");
    if (arg.rank < 1 || arg.rank > kMaxTensorMapRank)
      fail(where + " describes argument " + std::to_string(map.arg) +
           " of rank " + std::to_string(arg.rank) + "; TMA describes 1 to " +
           std::to_string(kMaxTensorMapRank) + " dimensions");
    if (!map.shape.empty() && arg.rank != 1)
      fail(where + " views argument " + std::to_string(map.arg) + " of rank " +
           std::to_string(arg.rank) +
           " as a shape; a shape views a rank-1 memref");
    if (map.shape.size() > static_cast<size_t>(kMaxTensorMapRank))
      fail(where + " has a shape of " + std::to_string(map.shape.size()) +
           " sizes; TMA describes 1 to " + std::to_string(kMaxTensorMapRank) +
           " dimensions");
    for (size_t d = 0; d < map.shape.size(); ++d)
      checkExpression(map.shape[d], kernel.key.size(),
                      where + " shape[" + std::to_string(d) + "]");
    int l2 = map.l2PromotionBytes;
    if (l2 != 0 && l2 != 64 && l2 != 128 && l2 != 256)
      fail(where + ": L2 promotion of " + std::to_string(l2) +
           " bytes; expected 0, 64, 128 or 256");
    if (map.oobFillNaN && !isFloatType(arg.type))
      fail(where + ": a NaN fill needs floating-point elements, argument " +
           std::to_string(map.arg) + " has " + scalarTypeName(arg.type));
  }

  /// A hidden parameter of a variant: a map of the kernel, with a box of
  /// the memref's rank whose constant entries TMA takes.
  void checkVariantTensorMap(const Kernel &kernel, const VariantTensorMap &map,
                             const std::string &where) const {
    if (map.map < 0 || static_cast<size_t>(map.map) >= kernel.tensorMaps.size())
      fail(where + " takes map " + std::to_string(map.map) +
           ", but the kernel has " + std::to_string(kernel.tensorMaps.size()));
    const TensorMapSpec &spec = kernel.tensorMaps[map.map];
    size_t rank = spec.shape.empty()
                      ? static_cast<size_t>(kernel.args[spec.arg].rank)
                      : spec.shape.size();
    if (map.box.size() != rank)
      fail(where + " has a box of " + std::to_string(map.box.size()) +
           " entries for a tensor of rank " + std::to_string(rank));
    for (size_t d = 0; d < map.box.size(); ++d) {
      const Expr &entry = map.box[d];
      checkExpression(entry, kernel.key.size(),
                      where + " box[" + std::to_string(d) + "]");
      if (entry.size() == 1 && entry[0].op == ExprNode::Op::Const &&
          (entry[0].value < 1 || entry[0].value > 256))
        fail(where + " box[" + std::to_string(d) + "] is " +
             std::to_string(entry[0].value) + "; TMA takes 1 to 256");
    }
    int swizzle = map.swizzleBytes;
    if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
      fail(where + ": swizzle of " + std::to_string(swizzle) +
           " bytes; expected 0, 32, 64 or 128");
  }

  void checkArg(const ArgSpec &arg, const std::string &where) const {
    if (arg.kind == ArgSpec::Kind::MemRef) {
      if (arg.rank < 0 || arg.rank > kMaxRank)
        fail(where + ": memref rank " + std::to_string(arg.rank) +
             " is outside [0, " + std::to_string(kMaxRank) + "]");
      return;
    }
    if (arg.rank != 0)
      fail(where + ": a scalar cannot have rank " + std::to_string(arg.rank));
    if (arg.written)
      fail(where + ": a scalar cannot be written");
  }

  void checkKey(const Kernel &kernel, const KeySpec &spec,
                const std::string &where) const {
    if (spec.arg < 0 || static_cast<size_t>(spec.arg) >= kernel.args.size())
      fail(where + " reads argument " + std::to_string(spec.arg) +
           ", but the kernel has " + std::to_string(kernel.args.size()));
    const ArgSpec &arg = kernel.args[spec.arg];
    if (spec.dim == -1) {
      if (arg.kind != ArgSpec::Kind::Scalar || !isIntegerType(arg.type))
        fail(where + " reads the value of argument " +
             std::to_string(spec.arg) + ", which is not an integer scalar");
    } else if (arg.kind != ArgSpec::Kind::MemRef || spec.dim < 0 ||
               spec.dim >= arg.rank) {
      fail(where + " reads dimension " + std::to_string(spec.dim) +
           " of argument " + std::to_string(spec.arg) +
           (arg.kind == ArgSpec::Kind::MemRef
                ? ", a memref of rank " + std::to_string(arg.rank)
                : std::string(", a scalar")));
    }
    if (spec.bucket != Bucket::Bins) {
      if (!spec.bins.empty())
        fail(where + " has bins but does not use Bins bucketing");
      return;
    }
    if (spec.bins.empty())
      fail(where + " uses Bins bucketing without bins");
    for (size_t i = 0; i < spec.bins.size(); ++i)
      if ((i && spec.bins[i] <= spec.bins[i - 1]) || spec.bins[i] == kAnyBucket)
        fail(where + ": bins must be strictly ascending and below " +
             std::to_string(kAnyBucket));
  }

  void checkExpression(const Expr &expr, size_t numDims,
                       const std::string &where) const {
    if (std::optional<std::string> problem = checkExpr(expr, numDims))
      fail(where + ": malformed expression: " + *problem);
  }

  void checkVariant(const Kernel &kernel, const Variant &variant,
                    const std::string &where) const {
    if (variant.config.size() != kernel.params.size())
      fail(where + " sets " + std::to_string(variant.config.size()) +
           " parameters, the kernel declares " +
           std::to_string(kernel.params.size()));
    for (size_t i = 0; i < variant.config.size(); ++i)
      if (variant.config[i].first != kernel.params[i])
        fail(where + ": configuration entry " + std::to_string(i) + " is '" +
             variant.config[i].first + "', expected parameter '" +
             kernel.params[i] + "'");
    size_t numDims = kernel.key.size();
    const char *axes[] = {"x", "y", "z"};
    for (int d = 0; d < 3; ++d) {
      checkExpression(variant.grid[d], numDims, where + " grid." + axes[d]);
      checkExpression(variant.block[d], numDims, where + " block." + axes[d]);
    }
    checkExpression(variant.sharedMemBytes, numDims, where + " sharedMemBytes");
    for (size_t i = 0; i < variant.constraints.size(); ++i) {
      std::string constraintWhere = where + " constraint " + std::to_string(i);
      if (variant.constraints[i].expr.empty())
        fail(constraintWhere + " is empty");
      checkExpression(variant.constraints[i].expr, numDims, constraintWhere);
    }
    if (variant.tensorMaps.size() > static_cast<size_t>(kMaxTensorMaps))
      fail(where + " takes " + std::to_string(variant.tensorMaps.size()) +
           " tensor maps; the runtime passes at most " +
           std::to_string(kMaxTensorMaps));
    for (size_t i = 0; i < variant.tensorMaps.size(); ++i)
      checkVariantTensorMap(kernel, variant.tensorMaps[i],
                            where + " tensor map " + std::to_string(i));
    if (variant.minBlocks < 1)
      fail(where + " asks for " + std::to_string(variant.minBlocks) +
           " blocks a multiprocessor (minBlocks); at least 1");
    for (const VariantCode &code : variant.code) {
      if (code.object < 0 ||
          static_cast<size_t>(code.object) >= bundle.objects.size())
        fail(where + " refers to object " + std::to_string(code.object) +
             ", but the bundle has " + std::to_string(bundle.objects.size()));
      if (code.symbol.empty())
        fail(where + " has code without a symbol");
    }
  }

  const Bundle &bundle;
  std::string_view origin;
};
} // namespace

void validateBundle(const Bundle &bundle, std::string_view origin) {
  Validator(bundle, origin).run();
}

} // namespace tuna
