//===- Compile.cpp - Compile expanded kernels into a bundle ---------------===//

#include "TargetImpl.h"

#include <chrono>

using namespace mlir;
using namespace mlir::tuna;

CompileOptions mlir::tuna::getDefaultCompileOptions() {
  CompileOptions options;
  options.rocmBitcodeDir = TUNA_DEFAULT_ROCM_BITCODE_DIR;
  options.ldLld = TUNA_DEFAULT_LD_LLD;
  return options;
}

FailureOr<::tuna::Bundle>
mlir::tuna::compileBundle(ModuleOp module, const CompileOptions &options,
                          CompileReport &report) {
  if (options.targets.empty())
    return emitError(module.getLoc()) << "no target to compile for";
  SmallVector<DispatchOp> dispatches(module.getOps<DispatchOp>());
  if (dispatches.empty())
    return emitError(module.getLoc())
           << "no tuna.dispatch in the module: nothing declares a tuna.space";

  SmallVector<::tuna::Kernel> kernels;
  SmallVector<SymbolRefAttr> gpuKernels;
  SmallVector<StringRef> hostFunctions;
  for (DispatchOp dispatch : dispatches) {
    FailureOr<::tuna::Kernel> kernel = compiler::buildKernel(dispatch);
    if (failed(kernel))
      return failure();
    kernels.push_back(std::move(*kernel));
    bool gpu = compiler::isGpuDispatch(dispatch);
    for (auto variant : dispatch.getBody().getOps<VariantOp>()) {
      if (gpu)
        gpuKernels.push_back(variant.getKernel());
      else
        hostFunctions.push_back(variant.getKernel().getRootReference());
    }
  }

  ::tuna::Bundle bundle;
  bundle.tunaVersion = TUNA_VERSION_STRING;
  SmallVector<compiler::CodeMap> codes(options.targets.size());
  for (auto [target, code] : llvm::zip_equal(options.targets, codes)) {
    bool host = target.kind == Target::Kind::Host;
    size_t variants = host ? hostFunctions.size() : gpuKernels.size();
    if (variants == 0) {
      report.notes.push_back(target.str() + ": no " + (host ? "host" : "GPU") +
                             " kernels in the input; nothing to compile");
      continue;
    }
    auto start = std::chrono::steady_clock::now();
    LogicalResult result =
        host ? compiler::compileHost(module, hostFunctions, options, bundle,
                                     code, report)
             : compiler::compileGpu(module, target, gpuKernels, options, bundle,
                                    code, report);
    if (failed(result))
      return failure();
    std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - start;
    report.times.push_back(
        {target.str(), static_cast<unsigned>(variants), elapsed.count()});
  }

  for (auto [dispatch, kernel] : llvm::zip_equal(dispatches, kernels)) {
    bool hasCode = false;
    for (auto [op, variant] : llvm::zip_equal(
             dispatch.getBody().getOps<VariantOp>(), kernel.variants)) {
      StringRef key = op.getKernel().getRootReference();
      for (compiler::CodeMap &code : codes) {
        auto it = code.find(key);
        if (it == code.end())
          continue;
        variant.code.insert(variant.code.end(), it->second.begin(),
                            it->second.end());
        hasCode = true;
      }
    }
    if (hasCode)
      bundle.kernels.push_back(std::move(kernel));
    else
      report.notes.push_back(
          "kernel '" + kernel.name + "' is a " +
          (compiler::isGpuDispatch(dispatch) ? "GPU" : "host") +
          " kernel and no requested target compiles it: left out");
  }
  if (bundle.kernels.empty()) {
    std::string targets;
    for (const Target &target : options.targets)
      targets += (targets.empty() ? "" : ", ") + target.str();
    return emitError(module.getLoc())
           << "nothing to put in the bundle: no kernel has variants for the "
              "requested targets ("
           << targets << ")";
  }
  return bundle;
}
