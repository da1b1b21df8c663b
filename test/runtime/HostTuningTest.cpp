//===- HostTuningTest.cpp - The tuning protocol on the host backend -------===//
//
// Real execution: the variants are functions of a shared library built from
// kernels/ScaleKernels.cpp, loaded from bundle bytes by the host backend,
// with scripted timings (scriptedHost()), so that every pick is exact on a
// slow, loaded or sanitized machine.
//
//===----------------------------------------------------------------------===//

#include "TestBundles.h"

#include "tuna/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

using namespace tuna;
using namespace tuna::test;

namespace {

constexpr int64_t kN = 1 << 14;
constexpr float kAlpha = 2.0f;

/// Inputs of one axpy launch and the expected result.
struct AxpyData {
  explicit AxpyData(int64_t n) : x(n), y(n), expected(n) {
    for (int64_t i = 0; i < n; ++i) {
      x[i] = static_cast<float>(i % 97) * 0.25f;
      y[i] = static_cast<float>(i % 13);
      expected[i] = y[i] + kAlpha * x[i];
    }
  }

  void launch(TunedKernel &kernel) {
    int64_t n = static_cast<int64_t>(x.size());
    kernel.launch(nullptr, memref(x.data(), {n}), memref(y.data(), {n}), kAlpha,
                  n);
  }

  std::vector<float> x, y, expected;
};

Module loadAxpy(const Options &options, Bundle bundle = axpyBundle()) {
  return Module::fromBundle(std::move(bundle), scriptedHost(), "axpy.tuna",
                            options);
}

} // namespace

TEST(HostTuningTest, PicksTheFastestCorrectVariant) {
  Module module = loadAxpy(fastOptions());
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData data(kN);
  std::vector<float> x0 = data.x;
  data.launch(kernel);

  // Every variant accumulates: y is exactly y0 + alpha * x only if no
  // candidate ran on the user's buffer and the final launch ran once.
  EXPECT_EQ(data.y, data.expected);
  EXPECT_EQ(data.x, x0);

  std::vector<TuningReport> reports = kernel.reports();
  ASSERT_EQ(reports.size(), 1u);
  const TuningReport &report = reports[0];
  EXPECT_EQ(report.signature, std::vector<int64_t>{kN});
  EXPECT_TRUE(report.checked);
  EXPECT_EQ(report.chosen, 1);
  EXPECT_EQ(report.chosenName, "axpy_work0");
  EXPECT_GT(report.wallMs, 0);
  ASSERT_EQ(report.candidates.size(), 4u);
  EXPECT_EQ(report.candidates[0].status, CandidateStatus::Measured);
  EXPECT_EQ(report.candidates[1].status, CandidateStatus::Measured);
  EXPECT_LT(report.candidates[1].medianMs, report.candidates[0].medianMs);
  EXPECT_EQ(report.candidates[1].config, "WORK=0");
  // Usually eliminated; on a loaded machine its budget may run out first.
  // FakeDeviceTest checks elimination with exact timings.
  const CandidateResult &slow = report.candidates[2];
  EXPECT_TRUE(slow.status == CandidateStatus::Eliminated ||
              (slow.status == CandidateStatus::Measured &&
               slow.medianMs > 2 * report.candidates[1].medianMs))
      << candidateStatusName(slow.status) << " " << slow.medianMs;
  EXPECT_EQ(report.candidates[3].status, CandidateStatus::WrongResult);
  EXPECT_NE(report.candidates[3].reason.find(
                "differs from the output 3 of 4 variants agree on (the "
                "default's): argument 1: 16384 of 16384 elements differ; "
                "worst element 0: got 1, expected 0 (error 1, allowed 0.0006, "
                "1.67e+03x the tolerance)"),
            std::string::npos)
      << report.candidates[3].reason;
  EXPECT_EQ(kernel.chosenVariant({kN}), 1);
}

/// A host axpy for TunedKernel::setReference, with `alpha` in place of the
/// launch's.
TunedKernel::Reference hostAxpy(float alpha, int *calls = nullptr) {
  return [=](StreamHandle, const ArgValue *args, size_t count) {
    ASSERT_EQ(count, 4u);
    const MemRefView &x = args[0].memref, &y = args[1].memref;
    const float *in = static_cast<const float *>(x.aligned) + x.offset;
    float *out = static_cast<float *>(y.aligned) + y.offset;
    for (int64_t i = 0; i < args[3].intValue; ++i)
      out[i] += alpha * in[i];
    if (calls)
      ++*calls;
  };
}

// The case: a default that writes a wrong result used to be the
// reference, so every correct variant was rejected and the broken default
// picked. Now it is outvoted, rejected, and said so on stderr.
TEST(HostTuningTest, ABrokenDefaultIsOutvoted) {
  Bundle bundle = axpyBundle();
  bundle.kernels[0].defaultVariant = 3; // axpy_wrong
  Module module = loadAxpy(fastOptions(), std::move(bundle));
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData data(kN);
  ::testing::internal::CaptureStderr();
  data.launch(kernel);
  std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(data.y, data.expected);
  TuningReport report = kernel.reports().at(0);
  EXPECT_TRUE(report.checked);
  EXPECT_TRUE(report.defaultRejected);
  EXPECT_EQ(report.checkedAgainst, "the output 3 of 4 variants agree on");
  EXPECT_EQ(report.checkedOn, "the host");
  EXPECT_GT(report.checkMs, 0);
  EXPECT_EQ(report.candidates[3].status, CandidateStatus::WrongResult);
  EXPECT_NE(report.candidates[3].reason.find(
                "differs from the output 3 of 4 variants agree on: argument "
                "1: "),
            std::string::npos)
      << report.candidates[3].reason;
  EXPECT_EQ(report.chosenName, "axpy_work0");
  EXPECT_NE(printed.find("tuna: warning: kernel 'axpy' in 'axpy.tuna' for "
                         "[d0=16384]: the default variant 'axpy_wrong' gives "
                         "a wrong result (checked against the output 3 of 4 "
                         "variants agree on)"),
            std::string::npos)
      << printed;
}

// Two variants that disagree, no majority: the default's output is kept,
// and the report says there was no majority.
TEST(HostTuningTest, ATieKeepsTheDefault) {
  Bundle bundle = axpyBundle();
  std::vector<Variant> &variants = bundle.kernels[0].variants;
  variants.erase(variants.begin() + 1, variants.begin() + 3); // work4, wrong
  Module module = loadAxpy(fastOptions(), std::move(bundle));
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData data(kN);
  data.launch(kernel);
  TuningReport report = kernel.reports().at(0);
  EXPECT_FALSE(report.defaultRejected);
  EXPECT_EQ(report.checkedAgainst,
            "the default's output (no majority among 2 variants)");
  EXPECT_EQ(report.candidates[1].status, CandidateStatus::WrongResult);
}

TEST(HostTuningTest, AnApplicationReferenceReplacesTheVote) {
  Module module = loadAxpy(fastOptions());
  TunedKernel &kernel = module.kernel("axpy");
  int calls = 0;
  kernel.setReference(hostAxpy(kAlpha, &calls), "host axpy");
  AxpyData data(kN);
  data.launch(kernel);
  EXPECT_EQ(data.y, data.expected);
  EXPECT_EQ(calls, 1);
  TuningReport report = kernel.reports().at(0);
  EXPECT_TRUE(report.checked);
  EXPECT_FALSE(report.defaultRejected);
  EXPECT_EQ(report.checkedAgainst, "the reference host axpy");
  EXPECT_EQ(report.candidates[3].status, CandidateStatus::WrongResult);
  EXPECT_EQ(report.chosenName, "axpy_work0");
}

TEST(HostTuningTest, AReferenceNoVariantMatchesRejectsThemAll) {
  Module module = loadAxpy(fastOptions());
  TunedKernel &kernel = module.kernel("axpy");
  kernel.setReference(hostAxpy(2 * kAlpha), "a wrong host axpy");
  AxpyData data(kN);
  try {
    data.launch(kernel);
    ADD_FAILURE() << "a variant passed a reference none matches";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "every candidate failed:\n  axpy_work4, axpy_work0, "
                  "axpy_work64: differs from the reference a wrong host axpy: "
                  "argument 1: "),
              std::string::npos)
        << e.what();
  }
}

TEST(HostTuningTest, KnownSignaturesDoNotTuneAgain) {
  Module module = loadAxpy(fastOptions());
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData first(kN), second(kN), other(kN / 2);
  first.launch(kernel);
  second.launch(kernel);
  EXPECT_EQ(second.y, second.expected);
  EXPECT_EQ(kernel.reports().size(), 1u);
  EXPECT_EQ(kernel.chosenVariant({kN / 2}), -1);
  other.launch(kernel);
  EXPECT_EQ(other.y, other.expected);
  EXPECT_EQ(kernel.reports().size(), 2u);
  EXPECT_EQ(kernel.chosenVariant({kN / 2}), kernel.reports()[1].chosen);
}

TEST(HostTuningTest, CheckOffKeepsTheWrongVariant) {
  Options options = fastOptions();
  options.check = false;
  // Timed to the end whatever its speed: a loaded machine must not make
  // early elimination decide this test.
  options.eliminateFactor = 1e9;
  Module module = loadAxpy(options);
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData data(kN);
  data.launch(kernel);
  TuningReport report = kernel.reports().at(0);
  EXPECT_FALSE(report.checked);
  EXPECT_EQ(report.candidates[3].status, CandidateStatus::Measured);
}

TEST(HostTuningTest, ModeOffLaunchesTheDefaultWithoutTiming) {
  Options options = fastOptions();
  options.mode = TuneMode::Off;
  Module module = loadAxpy(options);
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData data(kN);
  data.launch(kernel);
  EXPECT_EQ(data.y, data.expected);
  TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(report.mode, TuneMode::Off);
  EXPECT_EQ(report.chosen, 0);
  for (const CandidateResult &candidate : report.candidates) {
    EXPECT_EQ(candidate.status, CandidateStatus::NotTimed);
    EXPECT_EQ(candidate.samples, 0);
  }
}

TEST(HostTuningTest, ModeAlwaysTunes) {
  Options options = fastOptions();
  options.mode = TuneMode::Always;
  Module module = loadAxpy(options);
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData data(kN);
  data.launch(kernel);
  TuningReport report = kernel.reports().at(0);
  EXPECT_EQ(report.mode, TuneMode::Always);
  EXPECT_EQ(report.chosen, 1);
}

TEST(HostTuningTest, EnvironmentSetsTheModes) {
  ::setenv("TUNA_AUTOTUNE", "0", 1);
  EXPECT_EQ(Options::fromEnvironment().mode, TuneMode::Off);
  ::setenv("TUNA_ALWAYS_TUNE", "1", 1);
  EXPECT_EQ(Options::fromEnvironment().mode, TuneMode::Off) << "off wins";
  ::unsetenv("TUNA_AUTOTUNE");
  EXPECT_EQ(Options::fromEnvironment().mode, TuneMode::Always);
  ::unsetenv("TUNA_ALWAYS_TUNE");
  EXPECT_EQ(Options::fromEnvironment().mode, TuneMode::On);

  ::setenv("TUNA_PRINT_AUTOTUNING", "1", 1);
  ::setenv("TUNA_CHECK", "1", 1);
  ::setenv("TUNA_CHECK_RTOL", "0.5", 1);
  Options options = Options::fromEnvironment();
  EXPECT_TRUE(options.verbose);
  EXPECT_TRUE(options.check);
  EXPECT_EQ(options.rtol, 0.5);
  ::setenv("TUNA_CHECK_RTOL", "half", 1);
  try {
    Options::fromEnvironment();
    ADD_FAILURE() << "a malformed TUNA_CHECK_RTOL was accepted";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("TUNA_CHECK_RTOL='half'"),
              std::string::npos);
  }
  ::unsetenv("TUNA_PRINT_AUTOTUNING");
  ::unsetenv("TUNA_CHECK");
  ::unsetenv("TUNA_CHECK_RTOL");
}

TEST(HostTuningTest, VerboseModePrintsEveryCandidate) {
  Options options = fastOptions();
  options.verbose = true;
  Module module = loadAxpy(options);
  AxpyData data(kN);
  ::testing::internal::CaptureStderr();
  data.launch(module.kernel("axpy"));
  std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("tuna: kernel 'axpy' in 'axpy.tuna' for [d0=16384]"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("[0] axpy_work4 (WORK=4): "), std::string::npos);
  EXPECT_NE(printed.find("[3] axpy_wrong (WORK=-1): wrong result"),
            std::string::npos);
  const TuningReport report = module.kernel("axpy").reports().at(0);
  std::string picked = "tuna: picked [" + std::to_string(report.chosen) + "] " +
                       report.chosenName + " (" +
                       report.candidates[report.chosen].config + ") in ";
  EXPECT_NE(printed.find(picked), std::string::npos) << printed;
}

namespace {
/// The axpy bundle with axpy_work0 (variant 1) requiring n mod 4 == 0.
Module loadAxpyWithAConstraint() {
  Bundle bundle = axpyBundle();
  bundle.kernels[0].variants[1].constraints.push_back(
      {{dim(0), constant(4), op(ExprNode::Op::Mod)}, true});
  return loadAxpy(fastOptions(), std::move(bundle));
}
} // namespace

TEST(HostTuningTest, ConstraintsExcludeVariants) {
  Module module = loadAxpyWithAConstraint();
  TunedKernel &kernel = module.kernel("axpy");

  AxpyData aligned(kN), unaligned(kN - 1);
  aligned.launch(kernel);
  unaligned.launch(kernel);
  EXPECT_EQ(unaligned.y, unaligned.expected);
  std::vector<TuningReport> reports = kernel.reports();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].chosen, 1);
  EXPECT_EQ(reports[1].candidates[1].status, CandidateStatus::Excluded);
  EXPECT_EQ(reports[1].candidates[1].reason,
            "constraint 0 (d0 mod 4 == 0) does not hold");
  EXPECT_EQ(reports[1].chosen, 0);
}

TEST(HostTuningTest, ClassificationFollowsTheKeyValues) {
  // A search classifies every batch for the same key values, and the
  // kernel keeps what they decide (KeyedFacts); other key values must not
  // see it.
  Module module = loadAxpyWithAConstraint();
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData aligned(kN), unaligned(kN - 1);
  auto classify = [&](AxpyData &data) {
    int64_t n = static_cast<int64_t>(data.x.size());
    ArgValue args[] = {toArg(memref(data.x.data(), {n})),
                       toArg(memref(data.y.data(), {n})), toArg(kAlpha),
                       toArg(n)};
    return kernel.measure(nullptr, args, 4, {}).candidates[1];
  };
  for (int round = 0; round < 2; ++round) {
    EXPECT_NE(classify(aligned).status, CandidateStatus::Excluded);
    CandidateResult excluded = classify(unaligned);
    EXPECT_EQ(excluded.status, CandidateStatus::Excluded);
    EXPECT_EQ(excluded.reason, "constraint 0 (d0 mod 4 == 0) does not hold");
  }
  // And a launch of each still runs the geometry of its own key values.
  aligned.launch(kernel);
  unaligned.launch(kernel);
  EXPECT_EQ(aligned.y, aligned.expected);
  EXPECT_EQ(unaligned.y, unaligned.expected);
}

TEST(HostTuningTest, UnrunnableVariantsAreSkipped) {
  Bundle bundle = axpyBundle();
  Object ptx;
  ptx.target = "nvptx:sm_90";
  ptx.format = "ptx";
  ptx.data = "// not for the host";
  bundle.objects.push_back(ptx);
  Kernel &kernel = bundle.kernels[0];
  kernel.variants[2].code[0].symbol = "axpy_missing";
  kernel.variants[3].code[0].object = 1;
  Module module = loadAxpy(fastOptions(), std::move(bundle));
  AxpyData data(kN);
  data.launch(module.kernel("axpy"));
  EXPECT_EQ(data.y, data.expected);
  TuningReport report = module.kernel("axpy").reports().at(0);
  EXPECT_EQ(report.candidates[2].status, CandidateStatus::Unrunnable);
  EXPECT_NE(report.candidates[2].reason.find(
                "variant 'axpy_work64': symbol 'axpy_missing' not found"),
            std::string::npos)
      << report.candidates[2].reason;
  EXPECT_EQ(report.candidates[3].status, CandidateStatus::Unrunnable);
  EXPECT_EQ(report.candidates[3].reason, "no code for host host");
  EXPECT_EQ(report.chosen, 1);
}

TEST(HostTuningTest, NoRunnableVariantIsAnError) {
  Bundle bundle = axpyBundle();
  for (Variant &variant : bundle.kernels[0].variants) // n - 10^9 >= 0
    variant.constraints.push_back(
        {{dim(0), constant(-1000000000), op(ExprNode::Op::Add)}, false});
  Module module = loadAxpy(fastOptions(), std::move(bundle));
  AxpyData data(16);
  try {
    data.launch(module.kernel("axpy"));
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    std::string message = e.what();
    EXPECT_NE(message.find("kernel 'axpy' in 'axpy.tuna' for [d0=16]: no "
                           "variant can run"),
              std::string::npos)
        << message;
    // The four fail alike: one line names them all.
    EXPECT_NE(message.find("\n  axpy_work4, axpy_work0, axpy_work64, "
                           "axpy_wrong: constraint 0"),
              std::string::npos)
        << message;
  }
  EXPECT_EQ(data.y, std::vector<float>(AxpyData(16).y));
}

TEST(HostTuningTest, ConcurrentFirstCallsTuneOnce) {
  Module module = loadAxpy(fastOptions());
  TunedKernel &kernel = module.kernel("axpy");
  constexpr int kThreads = 8;
  std::vector<AxpyData> data(kThreads, AxpyData(kN));
  runTogether(kThreads, [&](int t) { data[t].launch(kernel); });
  EXPECT_EQ(kernel.reports().size(), 1u);
  for (const AxpyData &each : data)
    EXPECT_EQ(each.y, each.expected);
}

TEST(HostTuningTest, SixteenThreadsTuneEachNewSignatureOnce) {
  Module module = loadAxpy(fastOptions());
  TunedKernel &kernel = module.kernel("axpy");
  constexpr int kThreads = 16, kSignatures = 8;
  std::atomic<int> wrong{0};
  runTogether(kThreads, [&](int t) {
    // Every thread launches every signature, starting at a different one.
    for (int i = 0; i < kSignatures; ++i) {
      AxpyData data(64 << ((t + i) % kSignatures));
      data.launch(kernel);
      wrong += data.y != data.expected;
    }
  });
  EXPECT_EQ(wrong.load(), 0);
  std::vector<TuningReport> reports = kernel.reports();
  ASSERT_EQ(reports.size(), size_t(kSignatures));
  std::vector<int64_t> tuned;
  for (const TuningReport &report : reports) {
    tuned.push_back(report.signature.at(0));
    EXPECT_EQ(report.chosenName, "axpy_work0");
  }
  std::sort(tuned.begin(), tuned.end());
  for (int i = 0; i < kSignatures; ++i)
    EXPECT_EQ(tuned[i], int64_t(64) << i);
}

TEST(HostTuningTest, ManySignatures) {
  Options options = fastOptions();
  options.mode = TuneMode::Off;
  Module module = loadAxpy(options);
  TunedKernel &kernel = module.kernel("axpy");
  for (int64_t n = 1; n <= 300; ++n) {
    AxpyData data(n);
    data.launch(kernel);
    data.launch(kernel);
  }
  EXPECT_EQ(kernel.reports().size(), 300u);
  for (int64_t n = 1; n <= 300; ++n)
    EXPECT_EQ(kernel.chosenVariant({n}), 0);
  EXPECT_EQ(kernel.chosenVariant({301}), -1);
}

TEST(HostTuningTest, StridedViewsKeepTheirGaps) {
  Module module = loadAxpy(fastOptions());
  TunedKernel &kernel = module.kernel("axpy");
  const int64_t n = 1024;
  std::vector<float> x(n, 1.0f), storage(2 * n + 3, 5.0f);
  MemRefView y = memref(storage.data(), {n});
  y.offset = 3;
  y.strides[0] = 2;
  kernel.launch(nullptr, memref(x.data(), {n}), y, kAlpha, n);
  for (int64_t i = 0; i < 2 * n + 3; ++i) {
    bool element = i >= 3 && (i - 3) % 2 == 0;
    EXPECT_EQ(storage[i], element ? 7.0f : 5.0f) << "at " << i;
  }
}

TEST(HostTuningTest, LoadsBundleBytes) {
  std::string bytes = writeBundle(axpyBundle());
  Module module =
      Module::loadMemory(bytes, scriptedHost(), "embedded", fastOptions());
  EXPECT_EQ(module.kernelNames(), std::vector<std::string>{"axpy"});
  AxpyData data(256);
  data.launch(module.kernel("axpy"));
  EXPECT_EQ(data.y, data.expected);
}

TEST(HostTuningTest, MissingKernelListsTheKernels) {
  Module module = loadAxpy(fastOptions());
  try {
    module.kernel("saxpy");
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::NotFound);
    EXPECT_STREQ(e.what(), "'axpy.tuna' has no kernel 'saxpy'; it has: axpy");
  }
}

TEST(HostTuningTest, KernelWithoutHostCodeListsTheTargets) {
  Bundle bundle = axpyBundle();
  bundle.objects[0].target = "nvptx:sm_90";
  bundle.objects[0].format = "ptx";
  Module module = loadAxpy(fastOptions(), std::move(bundle));
  try {
    module.kernel("axpy");
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    std::string message = e.what();
    EXPECT_NE(message.find("kernel 'axpy' in 'axpy.tuna' has no code for this "
                           "device (host host"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("the bundle has code for: nvptx:sm_90 (ptx)"),
              std::string::npos)
        << message;
  }
}

// Variants that fail alike are named on one line with their reason.
TEST(HostTuningTest, IdenticalFailuresAreSaidOnce) {
  Module module = loadAxpy(fastOptions());
  TunedKernel &kernel = module.kernel("axpy");
  kernel.setReference(
      [](StreamHandle, const ArgValue *args, size_t) {
        const MemRefView &y = args[1].memref;
        static_cast<float *>(y.aligned)[y.offset] = 1e30f;
      },
      "a broken reference");
  AxpyData data(4);
  try {
    data.launch(kernel);
    ADD_FAILURE() << "a variant passed a reference none matches";
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("every candidate failed:\n  axpy_work4, "
                           "axpy_work0, axpy_work64: differs from the "
                           "reference a broken reference: argument 1: 1 of 4 "
                           "elements differs; worst element 0"),
              std::string::npos)
        << message;
  }
}

// One object per variant used to list the same target once per object (36
// times for a 36-variant kernel).
TEST(HostTuningTest, NoCodeNamesEachTargetOnce) {
  Bundle bundle = axpyBundle();
  bundle.objects[0].target = "nvptx:sm_90";
  bundle.objects[0].format = "cubin";
  Object other = bundle.objects[0];
  bundle.objects.push_back(other);
  bundle.objects.push_back(other);
  other.format = "ptx";
  bundle.objects.push_back(other);
  for (size_t v = 0; v < 3; ++v)
    bundle.kernels[0].variants[v].code[0].object = static_cast<int>(v);
  Module module = loadAxpy(fastOptions(), std::move(bundle));
  try {
    module.kernel("axpy");
    FAIL();
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("; the bundle has code for: nvptx:sm_90 (cubin, 3 "
                           "objects) nvptx:sm_90 (ptx)"),
              std::string::npos)
        << message;
  }
}

TEST(HostTuningTest, SpentBudgetLeavesOneSampleEach) {
  Options options = fastOptions();
  options.totalBudgetMs = 0;
  Module module = loadAxpy(options);
  AxpyData data(kN);
  data.launch(module.kernel("axpy"));
  EXPECT_EQ(data.y, data.expected);
  TuningReport report = module.kernel("axpy").reports().at(0);
  for (int v : {0, 1, 2}) {
    EXPECT_EQ(report.candidates[v].status, CandidateStatus::Measured);
    EXPECT_EQ(report.candidates[v].samples, 1);
  }
  EXPECT_EQ(report.chosen, 1);
}

TEST(HostTuningTest, MeasureTimesOnlyTheGivenVariants) {
  Module module = loadAxpy(fastOptions());
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData data(kN);
  std::vector<float> y0 = data.y;
  ArgValue args[] = {toArg(memref(data.x.data(), {kN})),
                     toArg(memref(data.y.data(), {kN})), toArg(kAlpha),
                     toArg(kN)};
  // axpy_work0 and axpy_wrong, with the check on: the default variant gives
  // the reference but is not timed.
  TuningReport report = kernel.measure(nullptr, args, 4, {1, 3}, 7);
  EXPECT_EQ(report.chosen, -1);
  EXPECT_EQ(data.y, y0) << "measure() ran on the user's buffer";
  EXPECT_EQ(kernel.chosenVariant({kN}), -1) << "measure() decided";
  EXPECT_TRUE(kernel.reports().empty());
  EXPECT_EQ(report.candidates[0].status, CandidateStatus::NotTimed);
  EXPECT_EQ(report.candidates[2].status, CandidateStatus::NotTimed);
  EXPECT_EQ(report.candidates[3].status, CandidateStatus::WrongResult);
  const CandidateResult &timed = report.candidates[1];
  ASSERT_EQ(timed.status, CandidateStatus::Measured);
  EXPECT_GE(timed.samples, 7);
  EXPECT_LE(timed.minMs, timed.medianMs);
  EXPECT_LE(timed.medianMs, timed.maxMs);

  // Nothing to time: only the classification.
  report = kernel.measure(nullptr, args, 4, {});
  for (const CandidateResult &candidate : report.candidates)
    EXPECT_EQ(candidate.status, CandidateStatus::NotTimed);
}

TEST(HostTuningTest, FirstCallCanSearch) {
  Options options = fastOptions();
  options.useSearch = true;
  options.search.strategy = "exhaustive";
  {
    Module module = loadAxpy(options);
    TunedKernel &kernel = module.kernel("axpy");
    AxpyData data(kN);
    data.launch(kernel);
    EXPECT_EQ(data.y, data.expected);
    TuningReport report = kernel.reports().at(0);
    EXPECT_EQ(report.source, DecisionSource::Tuned);
    // As PicksTheFastestCorrectVariant, through the search.
    EXPECT_EQ(report.chosenName, "axpy_work0");
    EXPECT_EQ(report.candidates[3].status, CandidateStatus::WrongResult);
  }

  // A budget of one evaluation times one candidate and picks it (without
  // the check, which may be axpy_wrong).
  options.search.strategy = "random";
  options.search.budgetEvaluations = 1;
  options.check = false;
  Module module = loadAxpy(options);
  TunedKernel &kernel = module.kernel("axpy");
  AxpyData data(kN);
  data.launch(kernel);
  TuningReport report = kernel.reports().at(0);
  int timed = 0;
  for (const CandidateResult &candidate : report.candidates)
    if (candidate.status == CandidateStatus::Measured) {
      ++timed;
      EXPECT_EQ(candidate.variant, report.chosen);
    } else {
      EXPECT_EQ(candidate.reason, "not visited by the search");
    }
  EXPECT_EQ(timed, 1);
}

TEST(HostTuningTest, FirstCallWithAnUnknownStrategyFails) {
  Options options = fastOptions();
  options.useSearch = true;
  options.search.strategy = "annealing";
  Module module = loadAxpy(options);
  AxpyData data(kN);
  try {
    data.launch(module.kernel("axpy"));
    ADD_FAILURE() << "launched with an unknown strategy";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("annealing"), std::string::npos);
  }
}
