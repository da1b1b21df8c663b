//===- CommandLine.h - Arguments of the runtime-only tools ------*- C++ -*-===//
//
// tuna-tune and tuna-cache link only tuna_runtime, so that they build where
// LLVM is absent (the GPU machine); they read their arguments with this
// instead of llvm::cl.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_TOOLS_COMMON_COMMANDLINE_H
#define TUNA_TOOLS_COMMON_COMMANDLINE_H

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace tuna::tools {

/// The tool's name in messages; main() sets it first.
inline const char *toolName = "tuna";

/// Prints `TOOL: error: MESSAGE` on stderr and exits with status 1.
[[noreturn]] inline void fail(const std::string &message) {
  std::fprintf(stderr, "%s: error: %s\n", toolName, message.c_str());
  std::exit(1);
}

/// The arguments of main(), read one at a time.
class Arguments {
public:
  Arguments(int argc, char **argv, const char *usage)
      : args(argv + 1, argv + argc), usage(usage) {}

  /// Reads the next argument into `arg`; false at the end. `-h` and
  /// `--help` print the usage and exit with status 0.
  bool next(std::string &arg) {
    if (position == args.size())
      return false;
    arg = args[position++];
    if (arg == "-h" || arg == "--help") {
      std::printf("%s", usage);
      std::exit(0);
    }
    return true;
  }

  /// The value of `option`, the argument just read: the next argument.
  const std::string &value(const std::string &option) {
    if (position == args.size())
      fail(option + " needs a value");
    return args[position++];
  }

  /// Whether `arg` looks like an option (and is not a file or command).
  static bool isOption(const std::string &arg) {
    return !arg.empty() && arg[0] == '-';
  }

  /// Fails for an option no branch of the caller took, with the usage.
  [[noreturn]] void unknownOption(const std::string &arg) const {
    fail("unknown option '" + arg + "'\n" + usage);
  }

private:
  std::vector<std::string> args;
  size_t position = 0;
  const char *usage;
};

} // namespace tuna::tools

#endif // TUNA_TOOLS_COMMON_COMMANDLINE_H
