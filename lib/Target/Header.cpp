//===- Header.cpp - A C++ header that embeds a bundle ---------------------===//
//
// The header holds the bundle's bytes and one launcher per kernel:
//
//   kernels::scale(stream, tuna::memref(x, {n}), tuna::memref(y, {n}), 2.0f,
//   n);
//
// A launcher without a device argument runs on the kernel's default device
// (the first CUDA device if the bundle has GPU code for the kernel, else the
// host) and caches its TunedKernel in a function-local static, so a launch
// takes no lock. The overload that takes a device looks the module up under
// a mutex on every call.
//
//===----------------------------------------------------------------------===//

#include "tuna/Target/Header.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::tuna;

namespace {

/// Words that cannot name a namespace or a function in C++17 or C++20.
bool isKeyword(llvm::StringRef name) {
  static constexpr llvm::StringLiteral keywords[] = {
      "alignas",       "alignof",     "and",
      "and_eq",        "asm",         "auto",
      "bitand",        "bitor",       "bool",
      "break",         "case",        "catch",
      "char",          "char8_t",     "char16_t",
      "char32_t",      "class",       "co_await",
      "co_return",     "co_yield",    "compl",
      "concept",       "const",       "const_cast",
      "consteval",     "constexpr",   "constinit",
      "continue",      "decltype",    "default",
      "delete",        "do",          "double",
      "dynamic_cast",  "else",        "enum",
      "explicit",      "export",      "extern",
      "false",         "float",       "for",
      "friend",        "goto",        "if",
      "inline",        "int",         "long",
      "mutable",       "namespace",   "new",
      "noexcept",      "not",         "not_eq",
      "nullptr",       "operator",    "or",
      "or_eq",         "private",     "protected",
      "public",        "register",    "reinterpret_cast",
      "requires",      "return",      "short",
      "signed",        "sizeof",      "static",
      "static_assert", "static_cast", "struct",
      "switch",        "template",    "this",
      "thread_local",  "throw",       "true",
      "try",           "typedef",     "typeid",
      "typename",      "union",       "unsigned",
      "using",         "virtual",     "void",
      "volatile",      "wchar_t",     "while",
      "xor",           "xor_eq"};
  return llvm::is_contained(keywords, name);
}

bool isIdentifier(llvm::StringRef name) {
  if (name.empty() || llvm::isDigit(name.front()) || isKeyword(name))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

const char *cppType(const ::tuna::ArgSpec &arg) {
  if (arg.kind == ::tuna::ArgSpec::Kind::MemRef)
    return "const ::tuna::MemRefView &";
  switch (arg.type) {
  case ::tuna::ScalarType::I1:
    return "bool";
  case ::tuna::ScalarType::I8:
    return "int8_t";
  case ::tuna::ScalarType::I16:
    return "int16_t";
  case ::tuna::ScalarType::I32:
    return "int32_t";
  case ::tuna::ScalarType::I64:
  case ::tuna::ScalarType::Index:
    return "int64_t";
  case ::tuna::ScalarType::F16:
    return "::tuna::Half";
  case ::tuna::ScalarType::BF16:
    return "::tuna::BFloat16";
  case ::tuna::ScalarType::F32:
    return "float";
  case ::tuna::ScalarType::F64:
    return "double";
  }
  llvm_unreachable("a scalar type the bundle format does not have");
}

/// The device a launcher without one runs on: CUDA device 0 for a kernel
/// with NVIDIA code, else HIP device 0 for one with AMD code, else the host.
const char *defaultDeviceFor(const ::tuna::Bundle &bundle,
                             const ::tuna::Kernel &kernel) {
  bool amd = false;
  for (const ::tuna::Variant &variant : kernel.variants)
    for (const ::tuna::VariantCode &code : variant.code) {
      llvm::StringRef target = bundle.objects[code.object].target;
      if (target.starts_with("nvptx:"))
        return "::tuna::Device::cuda(0)";
      amd |= target.starts_with("amdgcn:");
    }
  return amd ? "::tuna::Device::hip(0)" : "::tuna::Device::host()";
}

} // namespace

std::string mlir::tuna::headerNamespaceFor(llvm::StringRef path) {
  std::string name = llvm::sys::path::stem(path).str();
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_')
      c = '_';
  if (name.empty() || llvm::isDigit(name.front()))
    name.insert(name.begin(), '_');
  if (isKeyword(name))
    name += '_';
  return name;
}

llvm::Error mlir::tuna::verifyHeaderNamespace(llvm::StringRef ns) {
  if (ns == "tuna" || ns == "std")
    return error("header namespace '" + ns + "' is taken by " +
                 (ns == "tuna" ? "the Tuna runtime" : "the C++ library"));
  if (!isIdentifier(ns))
    return error("header namespace '" + ns +
                 "' is not a C++ identifier (letters, digits and '_', not "
                 "starting with a digit, not a keyword)");
  return llvm::Error::success();
}

/// Why a kernel of `bundle` cannot have a launcher, if one cannot.
static llvm::Error checkLaunchable(const ::tuna::Bundle &bundle) {
  for (const ::tuna::Kernel &kernel : bundle.kernels) {
    if (kernel.name == "module" || kernel.name == "detail")
      return error(
          "kernel '" + kernel.name +
          "' cannot have a launcher: the header's namespace declares '" +
          kernel.name + "' itself; rename the kernel");
    if (!isIdentifier(kernel.name))
      return error("kernel '" + kernel.name +
                   "' cannot name a C++ launcher function; rename the kernel");
  }
  return llvm::Error::success();
}

/// The header's comment, includes, the embedded bundle and `module()`.
static void emitPreamble(llvm::raw_ostream &os, const ::tuna::Bundle &bundle,
                         llvm::StringRef bundleBytes, llvm::StringRef ns,
                         llvm::StringRef source) {
  llvm::SmallVector<std::string> targets;
  for (const ::tuna::Object &object : bundle.objects)
    if (!llvm::is_contained(targets, object.target))
      targets.push_back(object.target);
  os << "// Generated by tuna-compile from " << source
     << ". Do not edit: compile the kernels again.\n"
     << "// Targets: " << llvm::join(targets, ", ") << ".\n"
     << "// Kernels:";
  for (auto [i, kernel] : llvm::enumerate(bundle.kernels))
    os << (i ? ", " : " ") << kernel.name << " (" << kernel.variants.size()
       << " variants)";
  os << ".\n#pragma once\n\n#include \"tuna/runtime/Runtime.h\"\n\n"
     << "#include <cstdint>\n#include <memory>\n#include <mutex>\n"
     << "#include <string_view>\n#include <utility>\n#include <vector>\n\n"
     << "namespace " << ns << " {\nnamespace detail {\n\n"
     << "/// The bundle file, " << bundleBytes.size() << " bytes.\n"
     << "inline const unsigned char bundle[" << bundleBytes.size() << "] = {\n";
  for (size_t i = 0; i < bundleBytes.size(); i += 16) {
    os << "   ";
    for (size_t j = i; j < std::min(i + 16, bundleBytes.size()); ++j)
      os << llvm::formatv(" {0:x2},",
                          static_cast<unsigned char>(bundleBytes[j]));
    os << "\n";
  }
  os << "};\n\n} // namespace detail\n\n"
     << "/// The bundle loaded for `device`, once per device (thread-safe).\n"
     << "inline ::tuna::Module &module(const ::tuna::Device &device) {\n"
     << "  static std::mutex mutex;\n"
     << "  static std::vector<std::pair<::tuna::Device, "
        "std::unique_ptr<::tuna::Module>>> modules;\n"
     << "  std::lock_guard<std::mutex> lock(mutex);\n"
     << "  for (auto &entry : modules)\n"
     << "    if (entry.first == device)\n"
     << "      return *entry.second;\n"
     << "  std::string_view bytes(reinterpret_cast<const char "
        "*>(detail::bundle),\n"
     << "                         sizeof(detail::bundle));\n"
     << "  modules.emplace_back(device, std::make_unique<::tuna::Module>(\n"
     << "      ::tuna::Module::loadMemory(bytes, device, \"" << ns
     << " (embedded bundle)\")));\n"
     << "  return *modules.back().second;\n}\n";
}

/// The two launchers of `kernel`: on a given device, and on its default one.
static void emitLaunchers(llvm::raw_ostream &os, const ::tuna::Bundle &bundle,
                          const ::tuna::Kernel &kernel) {
  std::string params, args;
  for (auto [i, arg] : llvm::enumerate(kernel.args)) {
    llvm::StringRef type = cppType(arg);
    params +=
        llvm::formatv(type.ends_with("&") ? ", {0}arg{1}" : ", {0} arg{1}",
                      type, i)
            .str();
    args += llvm::formatv(", arg{0}", i).str();
  }
  const char *defaultDevice = defaultDeviceFor(bundle, kernel);
  os << "\n/// Launches `" << kernel.name << "` (" << kernel.variants.size()
     << " variants) on `device`.\n"
     << "inline void " << kernel.name
     << "(const ::tuna::Device &device, ::tuna::StreamHandle stream" << params
     << ") {\n"
     << "  module(device).kernel(\"" << kernel.name << "\").launch(stream"
     << args << ");\n}\n"
     << "\n/// Launches `" << kernel.name << "` on " << defaultDevice << ".\n"
     << "inline void " << kernel.name << "(::tuna::StreamHandle stream"
     << params << ") {\n"
     << "  static ::tuna::TunedKernel &kernel =\n"
     << "      module(" << defaultDevice << ").kernel(\"" << kernel.name
     << "\");\n"
     << "  kernel.launch(stream" << args << ");\n}\n";
}

llvm::Expected<std::string> mlir::tuna::emitHeader(const ::tuna::Bundle &bundle,
                                                   llvm::StringRef bundleBytes,
                                                   llvm::StringRef ns,
                                                   llvm::StringRef source) {
  if (llvm::Error err = verifyHeaderNamespace(ns))
    return std::move(err);
  if (llvm::Error err = checkLaunchable(bundle))
    return std::move(err);
  std::string out;
  llvm::raw_string_ostream os(out);
  emitPreamble(os, bundle, bundleBytes, ns, source);
  for (const ::tuna::Kernel &kernel : bundle.kernels)
    emitLaunchers(os, bundle, kernel);
  os << "\n} // namespace " << ns << "\n";
  return out;
}
