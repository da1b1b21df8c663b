# -*- Python -*-
# lit configuration for Tuna's compiler tests.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "Tuna"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tuna_obj_root, "test")
# fuzz/corpus holds fuzzer inputs, not lit tests.
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "runtime", "gpu", "Inputs",
                   "fuzz"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.tuna_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["tuna-opt", "tuna-compile", "tuna-tune", "tuna-cache"], tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# Optional external tools: tests that need them say `REQUIRES: ptxas`.
if os.path.exists(config.ptxas_executable):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas_executable))
if os.path.isdir(config.rocm_bitcode_dir):
    config.available_features.add("rocm-bitcode")
