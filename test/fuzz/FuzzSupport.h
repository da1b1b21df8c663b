//===- FuzzSupport.h - What the libFuzzer targets share ---------*- C++ -*-===//
#ifndef TUNA_TEST_FUZZ_FUZZSUPPORT_H
#define TUNA_TEST_FUZZ_FUZZSUPPORT_H

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Device.h"
#include "tuna/runtime/Error.h"
#include "tuna/runtime/Module.h"
#include "tuna/runtime/Options.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace tuna::fuzz {

/// Stops the run as a finding: libFuzzer saves the input.
[[noreturn]] inline void finding(const char *target, const std::string &what) {
  std::fprintf(stderr, "%s: %s\n", target, what.c_str());
  std::abort();
}

/// Sets up a module of `bundle` on the host (every expression compiled, the
/// code of each variant selected) without loading any object: a bundle is
/// code, trusted like a shared library. Bad bundles throw tuna::Error only.
inline void setUpOnHost(Bundle bundle) {
  Options options;
  options.mode = TuneMode::Off;
  try {
    Module module =
        Module::fromBundle(std::move(bundle), Device::host(), "fuzz", options);
    for (const std::string &name : module.kernelNames()) {
      try {
        (void)module.kernel(name);
      } catch (const Error &) {
        // A kernel without code for the host.
      }
    }
  } catch (const Error &) {
  }
}

} // namespace tuna::fuzz

#endif // TUNA_TEST_FUZZ_FUZZSUPPORT_H
