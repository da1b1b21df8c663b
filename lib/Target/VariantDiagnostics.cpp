//===- VariantDiagnostics.cpp - One diagnostic per kernel, not per variant ===//
//
// Variants are clones of one kernel: a mistake in the kernel (an op a target
// cannot lower, a ptxas error) fails every variant the same way. The
// variants of a target compile in parallel, each inside forEach(); what they
// report is held back, tagged with the variant, and emit() reports each
// distinct diagnostic once, with a note naming the kernel, how many of its
// variants said it and their configurations.
//
//===----------------------------------------------------------------------===//

#include "TargetImpl.h"

#include "llvm/Support/ThreadPool.h"

#include <atomic>

using namespace mlir;
using namespace mlir::tuna;
using namespace mlir::tuna::compiler;

/// The variant (index into the owner's list) that the current thread
/// compiles, or -1 outside VariantDiagnostics::forEach.
static thread_local int64_t currentVariant = -1;

namespace {
/// Sets currentVariant for the lifetime of the scope.
struct CurrentVariant {
  explicit CurrentVariant(size_t index) : previous(currentVariant) {
    currentVariant = static_cast<int64_t>(index);
  }
  ~CurrentVariant() { currentVariant = previous; }
  int64_t previous;
};
} // namespace

VariantDiagnostics::VariantDiagnostics(MLIRContext *context,
                                       std::vector<VariantLabel> labels)
    : context(context), labels(std::move(labels)) {
  handler = context->getDiagEngine().registerHandler([this](Diagnostic &diag) {
    if (currentVariant < 0)
      return failure(); // Not from a variant: the next handler takes it.
    std::lock_guard<std::mutex> lock(mutex);
    held.push_back({static_cast<size_t>(currentVariant), held.size(),
                    std::move(diag)});
    return success();
  });
}

VariantDiagnostics::~VariantDiagnostics() {
  context->getDiagEngine().eraseHandler(handler);
  emit();
}

LogicalResult
VariantDiagnostics::forEach(function_ref<LogicalResult(size_t)> compile) {
  size_t count = labels.size();
  std::atomic<bool> failedAny(false);
  auto run = [&](size_t i) {
    CurrentVariant scope(i);
    if (failed(compile(i)))
      failedAny = true;
  };
  if (!context->isMultithreadingEnabled() || count <= 1) {
    for (size_t i = 0; i < count; ++i)
      run(i);
    return failure(failedAny);
  }
  // Every variant runs, also after one failed: all of them are reported.
  llvm::ThreadPoolInterface &pool = context->getThreadPool();
  std::atomic<size_t> next(0);
  llvm::ThreadPoolTaskGroup tasks(pool);
  for (size_t t = 0, e = std::min<size_t>(count, pool.getMaxConcurrency());
       t < e; ++t)
    tasks.async([&] {
      for (size_t i = next++; i < count; i = next++)
        run(i);
    });
  tasks.wait();
  return failure(failedAny);
}

/// `text` with each whole-word `from` replaced by `to`.
static std::string replaceWord(StringRef text, StringRef from, StringRef to) {
  auto isWordChar = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  std::string result;
  size_t start = 0;
  for (size_t at = text.find(from); at != StringRef::npos;
       at = text.find(from, at + 1)) {
    size_t end = at + from.size();
    if ((at > 0 && isWordChar(text[at - 1])) ||
        (end < text.size() && isWordChar(text[end])))
      continue;
    result += text.slice(start, at);
    result += to;
    start = end;
    at = end - 1;
  }
  result += text.drop_front(start);
  return result;
}

namespace {
/// One distinct diagnostic and the variants that reported it.
struct Group {
  DiagnosticSeverity severity;
  Location loc;
  std::string message;
  SmallVector<std::pair<Location, std::string>> notes;
  SmallVector<size_t> variants;

  bool sameAs(const Group &other) const {
    return severity == other.severity && loc == other.loc &&
           message == other.message && notes == other.notes;
  }
};
} // namespace

/// "in all 15 variants of kernel 'k'", or "in 2 of 15 variants of kernel
/// 'k': block=64 vec=4; block=128 vec=4", listing at most four
/// configurations.
static std::string describeVariants(ArrayRef<VariantLabel> labels,
                                    ArrayRef<size_t> variants) {
  const VariantLabel &first = labels[variants.front()];
  std::string text = "in ";
  if (variants.size() == first.kernelVariants)
    text += variants.size() == 1 ? "the only variant"
                                 : "all " + std::to_string(variants.size()) +
                                       " variants";
  else
    text += std::to_string(variants.size()) + " of " +
            std::to_string(first.kernelVariants) + " variants";
  text += " of kernel '" + first.kernel + "'";
  if (variants.size() == first.kernelVariants && variants.size() > 1)
    return text;
  constexpr size_t kListed = 4;
  text += ": ";
  for (auto [n, variant] : llvm::enumerate(variants)) {
    if (n == kListed) {
      text += " and " + std::to_string(variants.size() - kListed) + " more";
      break;
    }
    text += (n ? "; " : "") + labels[variant].config;
  }
  return text;
}

void VariantDiagnostics::emit() {
  llvm::stable_sort(held, [](const Held &a, const Held &b) {
    return std::tie(a.variant, a.order) < std::tie(b.variant, b.order);
  });
  // The distinct diagnostics in the order the first variant to report each
  // reported it; a tool naming the variant's symbol names the kernel here.
  SmallVector<Group> groups;
  for (Held &entry : held) {
    const VariantLabel &label = labels[entry.variant];
    auto spell = [&](const Diagnostic &diag) {
      return replaceWord(diag.str(), label.symbol, label.kernel);
    };
    Group group{entry.diag.getSeverity(), entry.diag.getLocation(),
                spell(entry.diag), {}, {entry.variant}};
    for (const Diagnostic &note : entry.diag.getNotes())
      group.notes.push_back({note.getLocation(), spell(note)});
    auto same = llvm::find_if(
        groups, [&](const Group &other) { return other.sameAs(group); });
    if (same == groups.end())
      groups.push_back(std::move(group));
    else if (same->variants.back() != entry.variant)
      same->variants.push_back(entry.variant);
  }
  held.clear();

  for (const Group &group : groups) {
    InFlightDiagnostic diag =
        context->getDiagEngine().emit(group.loc, group.severity);
    diag << group.message;
    for (const auto &[loc, text] : group.notes)
      diag.attachNote(loc) << text;
    // One note per kernel among the variants (a helper's error can be in
    // several kernels).
    SmallVector<size_t> rest(group.variants);
    while (!rest.empty()) {
      StringRef kernel = labels[rest.front()].kernel;
      SmallVector<size_t> ofKernel, others;
      for (size_t variant : rest)
        (labels[variant].kernel == kernel ? ofKernel : others)
            .push_back(variant);
      diag.attachNote(group.loc) << describeVariants(labels, ofKernel);
      rest = std::move(others);
    }
  }
}
