//===- CompileSource.cpp - MLIR text to a bundle --------------------------===//

#include "tuna/Target/Compile.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::tuna;

/// The handle of every timer below a phase (the passes', also from other
/// threads): Timer starts and stops whatever handle nestTimer returns, and
/// this one records nothing.
static char belowPhases;

/// Whether `handle`, of `manager`, is a phase: not the root, not below one.
static bool isPhase(const PhaseTimingManager *manager, void *handle) {
  return handle != manager && handle != &belowPhases;
}

void PhaseTimingManager::startTimer(void *handle) {
  if (isPhase(this, handle))
    static_cast<Phase *>(handle)->start = std::chrono::steady_clock::now();
}

void PhaseTimingManager::stopTimer(void *handle) {
  if (!isPhase(this, handle))
    return;
  auto *phase = static_cast<Phase *>(handle);
  phase->seconds += std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - phase->start)
                        .count();
}

void *PhaseTimingManager::nestTimer(void *handle, const void *,
                                    function_ref<std::string()> nameBuilder) {
  if (handle != this)
    return &belowPhases;
  phases.push_back({nameBuilder()});
  return &phases.back();
}

/// Where in `text` brackets first nest deeper than kMaxSourceNesting, or
/// npos. Brackets in string literals and `//` comments do not count; a
/// closing bracket never takes the depth below zero (`->` closes nothing).
static size_t findTooDeepNesting(StringRef text) {
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    switch (text[i]) {
    case '"':
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      break;
    case '/':
      if (text.substr(i).starts_with("//")) {
        i = text.find('\n', i);
        if (i == StringRef::npos)
          return StringRef::npos;
      }
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      if (++depth > kMaxSourceNesting)
        return i;
      break;
    case ')':
    case ']':
    case '}':
    case '>':
      depth -= depth > 0;
      break;
    default:
      break;
    }
  }
  return StringRef::npos;
}

LogicalResult mlir::tuna::checkSourceNesting(llvm::SourceMgr &sourceMgr,
                                             MLIRContext &context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  StringRef text = buffer->getBuffer();
  size_t tooDeep = findTooDeepNesting(text);
  if (tooDeep == StringRef::npos)
    return success();
  auto [line, column] = sourceMgr.getLineAndColumn(
      llvm::SMLoc::getFromPointer(text.data() + tooDeep));
  return emitError(FileLineColLoc::get(&context, buffer->getBufferIdentifier(),
                                       line, column))
         << "brackets nest deeper than " << kMaxSourceNesting
         << " levels here: MLIR's parser descends once per level and would "
            "run out of stack";
}

OwningOpRef<ModuleOp> mlir::tuna::parseTunaSource(llvm::SourceMgr &sourceMgr,
                                                  MLIRContext &context) {
  if (failed(checkSourceNesting(sourceMgr, context)))
    return nullptr;
  return parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
}

FailureOr<OwningOpRef<ModuleOp>>
mlir::tuna::parseAndExpand(llvm::SourceMgr &sourceMgr, MLIRContext &context,
                           const TunaExpandOptions &expandOptions,
                           TimingScope &timing) {
  TimingScope parseTiming = timing.nest("parse");
  OwningOpRef<ModuleOp> module = parseTunaSource(sourceMgr, context);
  if (!module)
    return failure();
  parseTiming.stop();

  TimingScope expandTiming = timing.nest("expand");
  PassManager pm(&context, ModuleOp::getOperationName());
  pm.enableTiming(expandTiming);
  pm.addPass(createTunaExpand(expandOptions));
  if (failed(pm.run(*module)))
    return failure();
  return module;
}

FailureOr<::tuna::Bundle>
mlir::tuna::compileSource(llvm::SourceMgr &sourceMgr, MLIRContext &context,
                          const TunaExpandOptions &expandOptions,
                          const CompileOptions &options, CompileReport &report,
                          TimingScope &timing,
                          function_ref<LogicalResult(ModuleOp)> expanded) {
  FailureOr<OwningOpRef<ModuleOp>> module =
      parseAndExpand(sourceMgr, context, expandOptions, timing);
  if (failed(module))
    return failure();
  if (expanded && failed(expanded(**module)))
    return failure();

  TimingScope compileTiming = timing.nest("compile");
  return compileBundle(**module, options, report);
}
