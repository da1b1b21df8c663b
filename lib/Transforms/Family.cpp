//===- Family.cpp - One dispatch table for several kernels ----------------===//
//
// The last step of tuna-expand: every `tuna.family` becomes a dispatch table
// of its own, made of the variants of the kernels it names, so that one
// tuning picks among kernels that cannot be one space (a type that depends
// on the configuration). The kernels' tables stay; the family's variants
// name the same symbols, so no code is duplicated.
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace mlir::tuna;
using namespace mlir::tuna::expand;

/// The family's own parameter: which kernel a variant comes from.
static constexpr StringLiteral kKernelParam = "kernel";

/// Whether a table's variants are GPU kernels (`@module::@func`), not host
/// functions.
static bool hasGpuVariants(DispatchOp table) {
  for (VariantOp variant : table.getBody().getOps<VariantOp>())
    return !variant.getKernel().getNestedReferences().empty();
  return false;
}

/// Checks that `table` can share a table with `first`: one ABI, one key,
/// the same parameters and targets, both GPU kernels or both host ones.
static LogicalResult checkLikeFirst(FamilyOp family, DispatchOp table,
                                    DispatchOp first) {
  auto differ = [&](StringRef what) {
    return family.emitError()
           << "family '" << family.getSymName() << "': kernel '"
           << table.getSymName() << "' has another " << what << " than '"
           << first.getSymName()
           << "'; a family's kernels must have the same function type, key, "
              "parameters and targets";
  };
  if (table.getFunctionType() != first.getFunctionType())
    return differ("function type");
  if (table.getKey() != first.getKey())
    return differ("key");
  if (table.getParams() != first.getParams())
    return differ("parameter list");
  if (table.getTargetsAttr() != first.getTargetsAttr())
    return differ("target list");
  if (hasGpuVariants(table) != hasGpuVariants(first))
    return family.emitError()
           << "family '" << family.getSymName() << "': kernel '"
           << table.getSymName() << "' is a "
           << (hasGpuVariants(table) ? "GPU" : "host") << " kernel and '"
           << first.getSymName()
           << "' is not; a family's kernels are all GPU kernels or all host "
              "ones";
  return success();
}

/// The tables of the family's kernels, in order, each built (not only
/// planned), without a parameter of the family's name, and like the first.
static FailureOr<SmallVector<DispatchOp>> memberTables(FamilyOp family,
                                                       ModuleOp module) {
  SmallVector<DispatchOp> tables;
  for (StringRef name : family.getKernels().getAsValueRange<StringAttr>()) {
    auto table = module.lookupSymbol<DispatchOp>(name);
    if (!table)
      return family.emitError()
             << "family '" << family.getSymName() << "' names '" << name
             << "', which is not a tunable kernel of this module";
    if (table->hasAttr(TunaDialect::getPlannedKernelAttrName()))
      return family.emitError()
             << "family '" << family.getSymName() << "': kernel '" << name
             << "' is only planned (plan-only: the JIT's lazy mode, "
                "tuna-compile --variants); a family's table is made of built "
                "variants";
    if (llvm::is_contained(table.getParams().getAsValueRange<StringAttr>(),
                           kKernelParam))
      return family.emitError()
             << "family '" << family.getSymName() << "': kernel '" << name
             << "' has a parameter named '" << kKernelParam
             << "', the name the family gives to its choice of kernel";
    if (!tables.empty() &&
        failed(checkLikeFirst(family, table, tables.front())))
      return failure();
    tables.push_back(table);
  }
  return tables;
}

/// A hash of the family's name and its kernels' sources, which names its
/// tuning cache entries: a change to any kernel invalidates the family's.
static std::string hashFamily(FamilyOp family, ArrayRef<DispatchOp> tables) {
  std::string text = family.getSymName().str();
  for (DispatchOp table : tables)
    text += ("\n" + table.getSymName() + " " + table.getSourceHash()).str();
  return llvm::utohexstr(llvm::xxh3_64bits(text), /*LowerCase=*/true, 16);
}

/// Copies kernel `index`'s variants into the family's table: its
/// configuration gains the kernel's index, its tensor maps move past those of
/// the kernels before it.
static void copyVariants(OpBuilder &builder, DispatchOp table, int64_t index,
                         int64_t firstMap) {
  for (VariantOp variant : table.getBody().getOps<VariantOp>()) {
    auto copy = cast<VariantOp>(builder.clone(*variant));
    SmallVector<NamedAttribute> config(variant.getConfig().getValue());
    config.push_back(
        builder.getNamedAttr(kKernelParam, builder.getI64IntegerAttr(index)));
    copy.setConfigAttr(builder.getDictionaryAttr(config));
    if (std::optional<ArrayRef<int64_t>> maps = variant.getTensorMaps()) {
      SmallVector<int64_t> moved(*maps);
      for (int64_t &map : moved)
        map += firstMap;
      copy.setTensorMapsAttr(builder.getDenseI64ArrayAttr(moved));
    }
  }
}

/// The family's table takes the family's name at the top level, where a
/// kernel's table may have it already.
static LogicalResult verifyNameFree(FamilyOp family, ModuleOp module) {
  for (Operation &op : module.getOps()) {
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (&op != family.getOperation() && name &&
        name.getValue() == family.getSymName())
      return family.emitError()
             << "family '" << family.getSymName()
             << "': its dispatch table needs the name '" << family.getSymName()
             << "' at the top level of the module, where another symbol has "
                "it";
  }
  return success();
}

static LogicalResult writeFamilyTable(FamilyOp family, ModuleOp module) {
  if (failed(verifyNameFree(family, module)))
    return failure();
  FailureOr<SmallVector<DispatchOp>> tables = memberTables(family, module);
  if (failed(tables))
    return failure();
  DispatchOp first = tables->front();
  OpBuilder builder(family);

  SmallVector<StringRef> params{kKernelParam};
  llvm::append_range(params, first.getParams().getAsValueRange<StringAttr>());
  std::set<int64_t> written;
  SmallVector<Attribute> maps;
  for (DispatchOp table : *tables) {
    written.insert(table.getWrittenArgs().begin(),
                   table.getWrittenArgs().end());
    if (ArrayAttr tableMaps = table.getTensorMapsAttr())
      llvm::append_range(maps, tableMaps);
  }
  auto dispatch = DispatchOp::create(
      builder, family.getLoc(), family.getSymName(), first.getFunctionType(),
      SmallVector<int64_t>(written.begin(), written.end()),
      builder.getStrArrayAttr(params), first.getKey(),
      first.getDefaultVariant(), hashFamily(family, *tables),
      first.getTargetsAttr(),
      maps.empty() ? ArrayAttr() : builder.getArrayAttr(maps));
  builder.setInsertionPointToStart(&dispatch.getBody().emplaceBlock());
  int64_t firstMap = 0;
  for (auto [index, table] : llvm::enumerate(*tables)) {
    copyVariants(builder, table, index, firstMap);
    if (ArrayAttr tableMaps = table.getTensorMapsAttr())
      firstMap += tableMaps.size();
  }
  family.erase();
  return success();
}

LogicalResult expand::writeFamilyTables(ModuleOp module) {
  for (FamilyOp family : llvm::make_early_inc_range(module.getOps<FamilyOp>()))
    if (failed(writeFamilyTable(family, module)))
      return failure();
  return success();
}
