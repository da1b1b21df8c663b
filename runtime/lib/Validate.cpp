//===- Validate.cpp - Semantic checks of a bundle -------------------------===//

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
    for (const Variant &variant : kernel.variants)
      checkVariant(kernel, variant, where + " variant '" + variant.name + "'");
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
