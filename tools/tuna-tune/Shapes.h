//===- Shapes.h - Launch arguments for the shapes tuna-tune tunes -*- C++ -*-//
//
// A shape gives every key value of a kernel (d0, d1, ... in key order, as
// formatSignature prints them). From it and the kernel's ABI, tuna-tune
// builds arguments: key values go where the key reads them; memref sizes
// not in the key come from --dims (expressions of the key values), else
// equal the largest key value of the shape, unless that makes a memref
// smaller than the product of the key values (a flat M x K buffer keyed on
// M and K): then --dims is required.
// Scalars not in the key come from --arg (floats default to 1).
// Memrefs are contiguous, on the device, filled with random values.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_TOOLS_TUNA_TUNE_SHAPES_H
#define TUNA_TOOLS_TUNA_TUNE_SHAPES_H

#include "tuna/runtime/Backend.h"
#include "tuna/runtime/Expr.h"
#include "tuna/runtime/MemRef.h"

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tuna::tune {

/// Key values, d0 first.
using Shape = std::vector<int64_t>;

/// The shapes of one spec: whitespace-separated `dI=LIST` items, where LIST
/// is comma-separated integers or `A..B` (A, 2A, 4A, ... up to B); the
/// cartesian product of the lists. Throws tuna::Error (InvalidArgument)
/// naming the spec.
std::vector<Shape> parseShapeSpec(const std::string &spec);

/// One size of a memref given by --dims: an integer expression of the key
/// values d0, d1, ... with + - * / (floor division) % and parentheses
/// (`64`, `d1`, `d0*d1`, `2*d0 + 1`, `(d1 + 127) / 128 * 128`).
struct DimValue {
  Expr expr; ///< Postfix (Expr.h), evaluated in checked 64-bit arithmetic.
};

/// Parses one --dims size; nullopt if `text` is not such an expression.
std::optional<DimValue> parseDimValue(const std::string &text);

/// What the command line says about arguments outside the key.
struct ArgSettings {
  std::map<int, std::vector<DimValue>> dims; ///< --dims aI=E,E...
  std::map<int, std::string> scalars;        ///< --arg aI=VALUE
};

/// Parses `aI=E,E...` into settings.dims; throws tuna::Error.
void parseDims(const std::string &text, ArgSettings &settings);
/// Parses `aI=VALUE` into settings.scalars; throws tuna::Error.
void parseArg(const std::string &text, ArgSettings &settings);

/// The launch arguments of `kernel` for `shape`, their memrefs' random
/// values (from `rng`) drawn on the host and not yet on a device: drawing
/// needs no device, so tuna-tune draws the next shape's values while this
/// one tunes. Draws on `threads` threads (the values do not depend on
/// how many). Throws tuna::Error on a shape or setting the kernel cannot
/// take.
class HostInputs {
public:
  HostInputs(const Kernel &kernel, const Shape &shape,
             const ArgSettings &settings, std::mt19937 &rng, unsigned threads);

private:
  friend class ShapeArgs;
  /// A memref's values: `size` bytes.
  struct Values {
    std::unique_ptr<char[]> bytes;
    size_t size = 0;
  };
  /// Memrefs without a buffer yet: `values` holds theirs, in order.
  std::vector<ArgValue> args;
  std::vector<Values> values;
};

/// Launch arguments on `backend`: `inputs`' memrefs copied to new device
/// buffers, freed with the object.
class ShapeArgs {
public:
  ShapeArgs(Backend &backend, const HostInputs &inputs);
  /// Draws the inputs (HostInputs, on every core) and copies them.
  ShapeArgs(Backend &backend, const Kernel &kernel, const Shape &shape,
            const ArgSettings &settings, std::mt19937 &rng);
  ~ShapeArgs();
  ShapeArgs(const ShapeArgs &) = delete;
  ShapeArgs &operator=(const ShapeArgs &) = delete;

  const ArgValue *data() const { return args.data(); }
  size_t size() const { return args.size(); }

private:
  Backend &backend;
  std::vector<ArgValue> args;
  std::vector<void *> buffers;
};

} // namespace tuna::tune

#endif // TUNA_TOOLS_TUNA_TUNE_SHAPES_H
