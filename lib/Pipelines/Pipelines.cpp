//===- Pipelines.cpp - Registered Tuna pipelines and targets --------------===//

#include "tuna/Pipelines/Pipelines.h"

#include "mlir/Dialect/Transform/TuneExtension/TuneExtension.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "tuna/Dialect/Tuna/IR/TunaDialect.h"
#include "tuna/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <mutex>

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
  if (arch == "nvptx") {
    target.kind = Kind::NVPTX;
    llvm::StringRef digits = chip;
    if (!digits.consume_front("sm_"))
      return bad("an NVIDIA chip is written sm_XY");
    digits.consume_back("a");
    unsigned version;
    if (digits.getAsInteger(10, version) || version < 75)
      return bad("an NVIDIA chip is written sm_XY, XY >= 75 (the oldest "
                 "CUDA 13 supports)");
    target.features = "+ptx80";
    return target;
  }
  if (arch == "amdgcn") {
    target.kind = Kind::AMDGCN;
    if (!chip.starts_with("gfx") || chip.size() < 6)
      return bad("an AMD chip is written gfxNNN");
    return target;
  }
  return bad("the architecture must be nvptx, amdgcn or host");
}

std::string Target::str() const {
  switch (kind) {
  case Kind::NVPTX:
    return "nvptx:" + chip;
  case Kind::AMDGCN:
    return "amdgcn:" + chip;
  case Kind::Host:
    return "host";
  }
  llvm_unreachable("unknown target kind");
}

void mlir::tuna::registerTunaDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  transform::registerTuneExtension(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<TunaDialect>();
}

/// The textual pipeline for a target. Kept textual so that it reads like the
/// command line one would type, and so that `tuna-opt --dump-pass-pipeline`
/// shows it as such.
static std::string pipelineFor(const Target &target) {
  // tuna-unroll (then canonicalize, so that the indices into unrolled
  // register tiles are constants) only touches loops marked tuna.unroll.
  constexpr llvm::StringLiteral kUnroll = "tuna-unroll,canonicalize";
  constexpr llvm::StringLiteral kCommon =
      "expand-strided-metadata,lower-affine,convert-scf-to-cf";
  switch (target.kind) {
  case Target::Kind::NVPTX:
    // convert-nvgpu-to-nvvm lowers the tensor-core ops (mma.sync, ldmatrix,
    // cp.async, the warpgroup ops) and must see the memrefs before
    // convert-gpu-to-nvvm does; convert-nvvm-to-llvm turns the NVVM ops that
    // have no LLVM intrinsic (wgmma.mma_async) into inline PTX.
    return llvm::formatv("nvvm-attach-target{{chip={0} features={1} O=3},"
                         "gpu.module({2},"
                         "expand-strided-metadata,lower-affine,"
                         "convert-nvgpu-to-nvvm,convert-scf-to-cf,"
                         "convert-gpu-to-nvvm,convert-nvvm-to-llvm,"
                         "reconcile-unrealized-casts)",
                         target.chip, target.features, kUnroll);
  case Target::Kind::AMDGCN:
    return llvm::formatv("rocdl-attach-target{{chip={0} O=3},"
                         "gpu.module({1},{2},convert-gpu-to-rocdl{{chipset={0}},"
                         "reconcile-unrealized-casts)",
                         target.chip, kUnroll, kCommon);
  case Target::Kind::Host:
    return llvm::formatv("convert-linalg-to-loops,{0},{1},"
                         "convert-vector-to-llvm,convert-to-llvm,"
                         "reconcile-unrealized-casts",
                         kUnroll, kCommon);
  }
  llvm_unreachable("unknown target kind");
}

void mlir::tuna::buildLowerToTargetPipeline(OpPassManager &pm,
                                            const Target &target) {
  // The pipelines are parsed from text, so their passes must be registered;
  // registering twice is harmless, so callers need not know.
  static std::once_flag registered;
  std::call_once(registered, [] {
    registerAllPasses();
    registerTunaPasses();
  });
  // The strings are ours and fixed: a parse failure is a bug, not user error.
  if (failed(parsePassPipeline(pipelineFor(target), pm, llvm::errs())))
    llvm::report_fatal_error("tuna: invalid built-in pipeline for " +
                             llvm::Twine(target.str()));
}

namespace {
struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("Target chip")};
};
} // namespace

void mlir::tuna::registerTunaPipelines() {
  auto registerGpu = [](StringRef name, StringRef arch, StringRef defaultChip,
                        StringRef summary) {
    std::string archName = arch.str(), chipDefault = defaultChip.str();
    PassPipelineRegistration<GpuPipelineOptions>(
        name, summary,
        [archName, chipDefault](OpPassManager &pm,
                                const GpuPipelineOptions &options) {
          std::string chip = options.chip.empty() ? chipDefault : options.chip;
          llvm::Expected<Target> target = Target::parse(archName + ":" + chip);
          if (!target)
            llvm::report_fatal_error(
                llvm::Twine(llvm::toString(target.takeError())));
          buildLowerToTargetPipeline(pm, *target);
        });
  };
  registerGpu("tuna-lower-nvptx", "nvptx", "sm_90",
              "Lower expanded GPU variants to NVVM (option chip=sm_XY)");
  registerGpu("tuna-lower-amdgcn", "amdgcn", "gfx942",
              "Lower expanded GPU variants to ROCDL (option chip=gfxNNN)");
  PassPipelineRegistration<>(
      "tuna-lower-host", "Lower expanded host variants to the LLVM dialect",
      [](OpPassManager &pm) { buildLowerToTargetPipeline(pm, Target()); });
}
