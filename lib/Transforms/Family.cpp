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

/// The value of a family parameter in the variants of a kernel that does
/// not have it.
static constexpr int64_t kAbsentParam = -1;

/// Checks that `table` can share a table with `first`: one ABI, one key,
/// the same targets, both GPU kernels or both host ones.
static LogicalResult checkLikeFirst(FamilyOp family, DispatchOp table,
                                    DispatchOp first) {
  auto differ = [&](StringRef what) {
    return family.emitError()
           << "family '" << family.getSymName() << "': kernel '"
           << table.getSymName() << "' has another " << what << " than '"
           << first.getSymName()
           << "'; a family's kernels must have the same function type, key "
              "and targets";
  };
  if (table.getFunctionType() != first.getFunctionType())
    return differ("function type");
  if (table.getKey() != first.getKey())
    return differ("key");
  if (table.getTargetsAttr() != first.getTargetsAttr())
    return differ("target list");
  if (table.hasGpuVariants() != first.hasGpuVariants())
    return family.emitError()
           << "family '" << family.getSymName() << "': kernel '"
           << table.getSymName() << "' is a "
           << (table.hasGpuVariants() ? "GPU" : "host") << " kernel and '"
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

/// The family's parameters: `kernel`, then every kernel's in order of first
/// appearance.
static SmallVector<StringRef> familyParams(ArrayRef<DispatchOp> tables) {
  SmallVector<StringRef> params{kKernelParam};
  for (DispatchOp table : tables)
    for (StringRef param : table.getParams().getAsValueRange<StringAttr>())
      if (!llvm::is_contained(params, param))
        params.push_back(param);
  return params;
}

/// A kernel's variants record a family parameter it does not have as
/// kAbsentParam, so no variant of a kernel that has it may take that value.
static LogicalResult verifyAbsentValueFree(FamilyOp family,
                                           ArrayRef<DispatchOp> tables,
                                           ArrayRef<StringRef> params) {
  for (StringRef param : params.drop_front()) {
    auto lacks = [&](DispatchOp table) {
      return !llvm::is_contained(
          table.getParams().getAsValueRange<StringAttr>(), param);
    };
    if (llvm::none_of(tables, lacks))
      continue;
    for (DispatchOp table : tables)
      for (VariantOp variant : table.getBody().getOps<VariantOp>()) {
        auto value = variant.getConfig().getAs<IntegerAttr>(param);
        if (value && value.getInt() == kAbsentParam)
          return family.emitError()
                 << "family '" << family.getSymName() << "': variant "
                 << variant.getKernel() << " of kernel '" << table.getSymName()
                 << "' sets '" << param << "' to " << kAbsentParam
                 << ", the value that marks the parameter "
                 << "absent in the variants of a kernel without it";
      }
  }
  return success();
}

/// Copies kernel `index`'s variants into the family's table: its
/// configuration gains the kernel's index and kAbsentParam for the family
/// parameters the kernel does not have, its tensor maps move past those of
/// the kernels before it.
static void copyVariants(OpBuilder &builder, DispatchOp table, int64_t index,
                         ArrayRef<StringRef> params, int64_t firstMap) {
  for (VariantOp variant : table.getBody().getOps<VariantOp>()) {
    auto copy = cast<VariantOp>(builder.clone(*variant));
    SmallVector<NamedAttribute> config(variant.getConfig().getValue());
    config.push_back(
        builder.getNamedAttr(kKernelParam, builder.getI64IntegerAttr(index)));
    for (StringRef param : params.drop_front())
      if (!variant.getConfig().contains(param))
        config.push_back(builder.getNamedAttr(
            param, builder.getI64IntegerAttr(kAbsentParam)));
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

  SmallVector<StringRef> params = familyParams(*tables);
  if (failed(verifyAbsentValueFree(family, *tables, params)))
    return failure();
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
    copyVariants(builder, table, index, params, firstMap);
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
