//===- Pipelines.cpp - Registered Tuna pipelines and targets --------------===//

#include "tuna/Pipelines/Pipelines.h"

#include "tuna/Dialect/Tuna/IR/TunaDialect.h"
#include "tuna/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/TransformOps/AffineTransformOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/TransformOps/FuncTransformOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/TransformOps/GPUTransformOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/InlinerInterfaceImpl.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/TransformOps/DialectExtension.h"
#include "mlir/Dialect/Linalg/Transforms/AllInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/TransformOps/MemRefTransformOps.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/NVGPU/TransformOps/NVGPUTransformOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/TransformOps/SCFTransformOps.h"
#include "mlir/Dialect/Transform/DebugExtension/DebugExtension.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/LoopExtension/LoopExtension.h"
#include "mlir/Dialect/Transform/TuneExtension/TuneExtension.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/TransformOps/VectorTransformOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tuna;

llvm::Expected<Target> Target::parse(llvm::StringRef spec) {
  Target target;
  auto [arch, chip] = spec.split(':');
  auto bad = [&](const llvm::Twine &why) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "unknown target '" + spec + "': " + why +
            " (expected nvptx:sm_XY[a], amdgcn:gfxNNN or host)");
  };
  if (arch == "host") {
    if (!chip.empty())
      return bad("the host target takes no chip");
    return target;
  }
  target.chip = chip.str();
  if (arch == "nvptx")
    target.kind = Kind::NVPTX;
  else if (arch == "amdgcn")
    target.kind = Kind::AMDGCN;
  else
    return bad("the architecture must be nvptx, amdgcn or host");
  std::string why = checkChip(target.arch(), chip);
  if (!why.empty())
    return bad(why);
  if (target.kind == Kind::NVPTX)
    target.features = "+ptx80";
  return target;
}

TargetArch Target::arch() const {
  switch (kind) {
  case Kind::NVPTX:
    return TargetArch::nvptx;
  case Kind::AMDGCN:
    return TargetArch::amdgcn;
  case Kind::Host:
    break;
  }
  return TargetArch::host;
}

bool Target::controlsGridDependency() const {
  std::optional<unsigned> sm = nvidiaVersion(chip);
  return kind == Kind::NVPTX && sm && *sm >= 90;
}

std::string Target::str() const {
  switch (kind) {
  case Kind::NVPTX:
    return "nvptx:" + chip;
  case Kind::AMDGCN:
    return "amdgcn:" + chip;
  case Kind::Host:
    break;
  }
  return "host";
}

//===----------------------------------------------------------------------===//
// Dialects
//===----------------------------------------------------------------------===//

void mlir::tuna::registerTunaDialects(DialectRegistry &registry) {
  registry.insert<TunaDialect, affine::AffineDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, DLTIDialect, func::FuncDialect,
                  gpu::GPUDialect, index::IndexDialect, linalg::LinalgDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  nvgpu::NVGPUDialect, NVVM::NVVMDialect, ROCDL::ROCDLDialect,
                  scf::SCFDialect, transform::TransformDialect, ub::UBDialect,
                  vector::VectorDialect>();

  // Schedules (transform.tune.knob and the transform ops of these dialects);
  // linalg's interfaces let them tile linalg ops.
  affine::registerTransformDialectExtension(registry);
  func::registerTransformDialectExtension(registry);
  gpu::registerTransformDialectExtension(registry);
  linalg::registerTransformDialectExtension(registry);
  linalg::registerAllDialectInterfaceImplementations(registry);
  memref::registerTransformDialectExtension(registry);
  nvgpu::registerTransformDialectExtension(registry);
  scf::registerTransformDialectExtension(registry);
  vector::registerTransformDialectExtension(registry);
  transform::registerDebugExtension(registry);
  transform::registerLoopExtension(registry);
  transform::registerTuneExtension(registry);

  // convert-to-llvm (the host pipeline) lowers every dialect with one of
  // these interfaces; the GPU pipelines use them through their passes.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  gpu::registerConvertGpuToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  LLVM::registerInlinerInterface(registry);
  NVVM::registerInlinerInterface(registry);

  // Serialization: #nvvm.target and #rocdl.target, and the translations to
  // LLVM IR that they and the host compiler run.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
}

//===----------------------------------------------------------------------===//
// Pipelines
//===----------------------------------------------------------------------===//

/// What every target runs first: tuna-unroll, then canonicalize so that the
/// indices into unrolled register tiles are constants (tuna-unroll only
/// touches loops marked tuna.unroll); then strided metadata and affine ops
/// become arithmetic.
static void addUnrollAndLowerAffine(OpPassManager &pm) {
  pm.addPass(createTunaUnroll());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
}

/// The lowering inside every gpu.module, starting with what all targets
/// share: the subgroup size as a constant, unrolling and affine lowering.
static OpPassManager &nestGpuModuleLowering(OpPassManager &pm) {
  OpPassManager &gpu = pm.nest<gpu::GPUModuleOp>();
  gpu.addPass(createTunaResolveSubgroupSize());
  addUnrollAndLowerAffine(gpu);
  return gpu;
}

/// nvvm-attach-target, then in every gpu.module the lowering to NVVM.
static void buildNvptxPipeline(OpPassManager &pm, const Target &target) {
  GpuNVVMAttachTargetOptions attach;
  attach.chip = target.chip;
  attach.features = target.features;
  attach.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(attach));

  OpPassManager &gpu = nestGpuModuleLowering(pm);
  if (target.controlsGridDependency())
    gpu.addPass(createTunaGridDependency());
  // Kernel arguments marked tuna.tensor_map (TMA descriptors) become
  // 128-byte grid-constant parameters: their lowered positions are recorded
  // before convert-gpu-to-nvvm, which drops llvm.byval, and the LLVM
  // attributes are set after it (docs/tma-design.md).
  gpu.addPass(createTunaTensorMapArgs());
  // convert-nvgpu-to-nvvm lowers the tensor-core ops (mma.sync, ldmatrix,
  // cp.async, the warpgroup ops) and must see the memrefs before
  // convert-gpu-to-nvvm does.
  gpu.addPass(createConvertNVGPUToNVVMPass());
  gpu.addPass(createSCFToControlFlowPass());
  gpu.addPass(createConvertGpuOpsToNVVMOps());
  gpu.addPass(createTunaTensorMapArgs());
  // NVVM ops without an LLVM intrinsic (wgmma.mma_async) become inline PTX.
  gpu.addPass(createConvertNVVMToLLVMPass());
  gpu.addPass(createReconcileUnrealizedCastsPass());
}

/// rocdl-attach-target, then in every gpu.module the lowering to ROCDL.
static void buildAmdgcnPipeline(OpPassManager &pm, const Target &target) {
  GpuROCDLAttachTargetOptions attach;
  attach.chip = target.chip;
  attach.optLevel = 3;
  pm.addPass(createGpuROCDLAttachTarget(attach));

  OpPassManager &gpu = nestGpuModuleLowering(pm);
  gpu.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToROCDLOpsOptions toRocdl;
  toRocdl.chipset = target.chip;
  gpu.addPass(createConvertGpuOpsToROCDLOps(toRocdl));
  gpu.addPass(createReconcileUnrealizedCastsPass());
}

/// The host variants, at the top level, to the LLVM dialect.
static void buildHostPipeline(OpPassManager &pm) {
  pm.addPass(createConvertLinalgToLoopsPass());
  addUnrollAndLowerAffine(pm);
  pm.addPass(createTunaApproximateMath());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::tuna::buildLowerToTargetPipeline(OpPassManager &pm,
                                            const Target &target) {
  switch (target.kind) {
  case Target::Kind::NVPTX:
    return buildNvptxPipeline(pm, target);
  case Target::Kind::AMDGCN:
    return buildAmdgcnPipeline(pm, target);
  case Target::Kind::Host:
    return buildHostPipeline(pm);
  }
}

namespace {
struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("Target chip")};
};
} // namespace

/// Registers the pipeline `name` for the GPU architecture `arch`; a chip
/// that Target::parse rejects is reported as a pipeline error.
static void registerGpuPipeline(StringRef name, StringRef arch,
                                StringRef defaultChip, StringRef summary) {
  std::string archName = arch.str(), chipDefault = defaultChip.str();
  registerPassPipeline(
      name, summary,
      [archName, chipDefault](
          OpPassManager &pm, StringRef text,
          function_ref<LogicalResult(const Twine &)> errorHandler) {
        GpuPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        std::string chip = options.chip.empty() ? chipDefault : options.chip;
        llvm::Expected<Target> target = Target::parse(archName + ":" + chip);
        if (!target)
          return errorHandler(llvm::toString(target.takeError()));
        buildLowerToTargetPipeline(pm, *target);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optionHandler) {
        optionHandler(GpuPipelineOptions());
      });
}

void mlir::tuna::registerTunaPipelines() {
  registerGpuPipeline("tuna-lower-nvptx", "nvptx", "sm_90",
                      "Lower expanded GPU variants to NVVM (option "
                      "chip=sm_XY)");
  registerGpuPipeline("tuna-lower-amdgcn", "amdgcn", "gfx942",
                      "Lower expanded GPU variants to ROCDL (option "
                      "chip=gfxNNN)");
  PassPipelineRegistration<>(
      "tuna-lower-host", "Lower expanded host variants to the LLVM dialect",
      [](OpPassManager &pm) { buildHostPipeline(pm); });
}
