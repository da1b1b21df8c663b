//===- Shapes.cpp - Launch arguments for the shapes tuna-tune tunes -------===//

#include "Shapes.h"

#include "tuna/runtime/ScalarType.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

namespace tuna::tune {

namespace {

[[noreturn]] void bad(const std::string &message) {
  throw Error(ErrorCode::InvalidArgument, message);
}

/// The integer `text`, or nullopt.
std::optional<int64_t> parseInteger(const std::string &text) {
  if (text.empty())
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE)
    return std::nullopt;
  return value;
}

/// `aI` or `dI` with the given letter: I, or -1.
int parseIndex(const std::string &text, char letter) {
  if (text.size() < 2 || text[0] != letter)
    return -1;
  std::optional<int64_t> index = parseInteger(text.substr(1));
  return index && *index >= 0 && *index < kMaxArgs ? static_cast<int>(*index)
                                                   : -1;
}

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, separator))
    items.push_back(item);
  if (!text.empty() && text.back() == separator)
    items.push_back("");
  return items;
}

/// `A..B` or `A`, appended to `values`; false if malformed.
bool parseValues(const std::string &item, std::vector<int64_t> &values) {
  size_t dots = item.find("..");
  if (dots == std::string::npos) {
    std::optional<int64_t> value = parseInteger(item);
    if (value)
      values.push_back(*value);
    return value.has_value();
  }
  std::optional<int64_t> first = parseInteger(item.substr(0, dots));
  std::optional<int64_t> last = parseInteger(item.substr(dots + 2));
  if (!first || !last || *first <= 0 || *last < *first)
    return false;
  for (int64_t value = *first; value <= *last; value *= 2) {
    values.push_back(value);
    if (value > *last / 2)
      break;
  }
  return true;
}

/// The recursive-descent parser of a --dims size (DimValue): sum :=
/// product (('+' | '-') product)*; product := factor (('*' | '/' | '%')
/// factor)*; factor := integer | dI | '(' sum ')'. Writes postfix nodes.
class DimParser {
public:
  explicit DimParser(const std::string &text) : text(text) {}

  std::optional<Expr> parse() {
    Expr out;
    if (!sum(out))
      return std::nullopt;
    skipSpaces();
    if (pos != text.size() || out.empty())
      return std::nullopt;
    return out;
  }

private:
  using Op = ExprNode::Op;

  void skipSpaces() {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
  }
  bool eat(char c) {
    skipSpaces();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool sum(Expr &out) {
    if (!product(out))
      return false;
    for (;;) {
      if (eat('+')) {
        if (!product(out))
          return false;
        out.push_back({Op::Add, 0});
      } else if (eat('-')) { // a - b is a + b * -1, as affine maps have it.
        if (!product(out))
          return false;
        out.push_back({Op::Const, -1});
        out.push_back({Op::Mul, 0});
        out.push_back({Op::Add, 0});
      } else {
        return true;
      }
    }
  }
  bool product(Expr &out) {
    if (!factor(out))
      return false;
    for (;;) {
      Op op;
      if (eat('*'))
        op = Op::Mul;
      else if (eat('/'))
        op = Op::FloorDiv;
      else if (eat('%'))
        op = Op::Mod;
      else
        return true;
      if (!factor(out))
        return false;
      out.push_back({op, 0});
    }
  }
  bool factor(Expr &out) {
    if (eat('(')) {
      if (++depth > kMaxExprDepth || !sum(out) || !eat(')'))
        return false;
      --depth;
      return true;
    }
    bool key = pos < text.size() && text[pos] == 'd';
    size_t start = pos + key;
    size_t end = start;
    while (end < text.size() &&
           std::isdigit(static_cast<unsigned char>(text[end])))
      ++end;
    std::optional<int64_t> value =
        parseInteger(text.substr(start, end - start));
    if (!value || (key && *value >= kMaxArgs))
      return false;
    pos = end;
    out.push_back({key ? Op::Dim : Op::Const, *value});
    return true;
  }

  const std::string &text;
  size_t pos = 0;
  int depth = 0;
};

uint16_t halfBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint32_t sign = (bits >> 16) & 0x8000;
  int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffff;
  if (exponent <= 0) // Too small for a normal half: zero.
    return static_cast<uint16_t>(sign);
  if (exponent >= 31) // Too large: infinity.
    return static_cast<uint16_t>(sign | 0x7c00);
  uint32_t half = sign | (uint32_t(exponent) << 10) | (mantissa >> 13);
  if ((mantissa & 0x1fff) > 0x1000 ||
      ((mantissa & 0x1fff) == 0x1000 && (half & 1)))
    ++half; // Round to nearest even.
  return static_cast<uint16_t>(half);
}

uint16_t bfloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  bits += 0x7fff + ((bits >> 16) & 1); // Round to nearest even.
  return static_cast<uint16_t>(bits >> 16);
}

/// Fills `count` elements of `type` at `data` with random values from
/// `rng`: floats in [-1, 1], integers in [0, 16), i1 0 or 1.
void fillChunk(ScalarType type, char *data, size_t count, std::mt19937 &rng) {
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(0, 15);
  size_t size = scalarTypeSize(type);
  for (size_t i = 0; i < count; ++i) {
    char *slot = data + i * size;
    switch (type) {
    case ScalarType::F32: {
      float value = real(rng);
      std::memcpy(slot, &value, size);
      break;
    }
    case ScalarType::F64: {
      double value = real(rng);
      std::memcpy(slot, &value, size);
      break;
    }
    case ScalarType::F16: {
      uint16_t value = halfBits(real(rng));
      std::memcpy(slot, &value, size);
      break;
    }
    case ScalarType::BF16: {
      uint16_t value = bfloatBits(real(rng));
      std::memcpy(slot, &value, size);
      break;
    }
    default: { // Integers, little-endian.
      int64_t value = type == ScalarType::I1 ? small(rng) & 1 : small(rng);
      std::memcpy(slot, &value, size);
      break;
    }
    }
  }
}

/// fillChunk() over `count` elements in chunks, each from a generator of
/// its own seeded by `rng` in order, on `threads` threads: the values
/// depend on `rng` alone, not on the number of threads.
void fillRandom(ScalarType type, char *data, size_t count, std::mt19937 &rng,
                unsigned threads) {
  constexpr size_t kChunk = size_t(1) << 18;
  size_t chunks = (count + kChunk - 1) / kChunk;
  std::vector<uint32_t> seeds(chunks);
  for (uint32_t &seed : seeds)
    seed = rng();
  size_t size = scalarTypeSize(type);
  std::atomic<size_t> next{0};
  auto fill = [&] {
    for (size_t c; (c = next++) < chunks;) {
      std::mt19937 local(seeds[c]);
      fillChunk(type, data + c * kChunk * size,
                std::min(kChunk, count - c * kChunk), local);
    }
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < std::min<size_t>(chunks, threads); ++t)
    helpers.emplace_back(fill);
  fill();
  for (std::thread &helper : helpers)
    helper.join();
}

ArgValue scalarArg(ScalarType type, const std::string &text, int index) {
  ArgValue arg;
  arg.type = type;
  std::string where = "--arg a" + std::to_string(index) + "=" + text;
  if (isIntegerType(type)) {
    std::optional<int64_t> value = parseInteger(text);
    if (!value)
      bad(where + ": expected an integer for an " + scalarTypeName(type) +
          " scalar");
    arg.intValue = *value;
    return arg;
  }
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0')
    bad(where + ": expected a number for an " + scalarTypeName(type) +
        " scalar");
  if (type == ScalarType::F16)
    arg.intValue = halfBits(static_cast<float>(value));
  else if (type == ScalarType::BF16)
    arg.intValue = bfloatBits(static_cast<float>(value));
  else
    arg.floatValue = value;
  return arg;
}

/// Memref sizes and scalar values of a kernel's arguments, as far as the
/// key and --dims give them.
struct KnownArgs {
  std::vector<std::vector<std::optional<int64_t>>> sizes;
  std::vector<std::optional<int64_t>> values;
};

/// Sets `slot` to `value`; throws if it already holds another value.
void setOnce(std::optional<int64_t> &slot, int64_t value,
             const std::string &where, const std::string &what) {
  if (slot && *slot != value)
    bad(where + ": " + what + " is both " + std::to_string(*slot) + " and " +
        std::to_string(value));
  slot = value;
}

/// What the key values of `shape` say about the arguments.
KnownArgs knownFromKey(const Kernel &kernel, const Shape &shape,
                       const std::string &where) {
  KnownArgs known;
  known.sizes.resize(kernel.args.size());
  known.values.resize(kernel.args.size());
  for (size_t a = 0; a < kernel.args.size(); ++a)
    known.sizes[a].resize(kernel.args[a].rank);
  for (size_t k = 0; k < kernel.key.size(); ++k) {
    const KeySpec &key = kernel.key[k];
    std::string what = "argument " + std::to_string(key.arg);
    if (key.dim < 0)
      setOnce(known.values[key.arg], shape[k], where, what);
    else
      setOnce(known.sizes[key.arg][key.dim], shape[k], where,
              what + " dimension " + std::to_string(key.dim));
  }
  return known;
}

/// Adds the memref sizes --dims gives (products of key values of `shape`).
void addGivenDims(KnownArgs &known, const Kernel &kernel, const Shape &shape,
                  const ArgSettings &settings, const std::string &where) {
  for (const auto &[arg, dims] : settings.dims) {
    std::string what = "--dims a" + std::to_string(arg);
    if (static_cast<size_t>(arg) >= kernel.args.size() ||
        kernel.args[arg].kind != ArgSpec::Kind::MemRef)
      bad(where + ": " + what + ": argument " + std::to_string(arg) +
          " is not a memref");
    std::vector<std::optional<int64_t>> &sizes = known.sizes[arg];
    if (dims.size() != sizes.size())
      bad(where + ": " + what + " gives " + std::to_string(dims.size()) +
          " sizes, the memref has rank " + std::to_string(sizes.size()));
    for (size_t d = 0; d < dims.size(); ++d) {
      for (const ExprNode &node : dims[d].expr)
        if (node.op == ExprNode::Op::Dim &&
            node.value >= static_cast<int64_t>(shape.size()))
          bad(where + ": " + what + " reads d" + std::to_string(node.value) +
              ", but the key has " + std::to_string(shape.size()) + " values");
      int64_t size = 0;
      ExprError error;
      if (!CompiledExpr::compile(dims[d].expr, shape.size(), 0, what)
               .evaluate(shape.data(), size, &error))
        bad(where + ": " + what + ": dimension " + std::to_string(d) + " " +
            describeExprError(error));
      setOnce(sizes[d], size, where,
              "argument " + std::to_string(arg) + " dimension " +
                  std::to_string(d));
    }
  }
}

/// How a memref size that neither the key nor --dims gives is guessed: the
/// largest key value. A kernel may index a flat (rank-1) memref by any
/// product of its key values (a rows x cols buffer keyed on rows and cols):
/// a guessed size must not make it smaller than the product of them all. A
/// guessed dimension of a memref of higher rank takes the largest key value,
/// at least what any one key value bounds.
struct SizeGuess {
  explicit SizeGuess(const Shape &shape) {
    for (size_t k = 0; k < shape.size(); ++k) {
      largest = std::max(largest, shape[k]);
      keyProduct =
          shape[k] > 1 && keyProduct > (uint64_t(1) << 62) / shape[k]
              ? uint64_t(1) << 62
              : keyProduct * std::max<int64_t>(1, shape[k]);
      keyProductText += (k ? "*d" : "d") + std::to_string(k);
    }
  }

  int64_t largest = 1;
  uint64_t keyProduct = 1; ///< d0*d1*..., saturated at 2^62.
  std::string keyProductText;
};

/// The contiguous view of memref argument `a` with the sizes known or
/// guessed, its data not yet set; `elements` is its element count.
MemRefView memrefView(const ArgSpec &spec, size_t a,
                      const std::vector<std::optional<int64_t>> &sizes,
                      const SizeGuess &guess, const std::string &where,
                      uint64_t &elements) {
  MemRefView view;
  view.rank = spec.rank;
  view.type = spec.type;
  elements = 1;
  int guessed = -1;
  for (int d = spec.rank - 1; d >= 0; --d) {
    if (!sizes[d])
      guessed = d;
    int64_t size = sizes[d].value_or(guess.largest);
    if (size < 0)
      bad(where + ": argument " + std::to_string(a) + " dimension " +
          std::to_string(d) + " would be " + std::to_string(size));
    view.sizes[d] = size;
    view.strides[d] = static_cast<int64_t>(elements);
    if (size && elements > (uint64_t(1) << 40) / uint64_t(size))
      bad(where + ": argument " + std::to_string(a) +
          " would need more than 2^40 elements");
    elements *= static_cast<uint64_t>(size);
  }
  if (guessed >= 0 && spec.rank == 1 && elements < guess.keyProduct)
    bad(where + ": the size of argument " + std::to_string(a) + " dimension " +
        std::to_string(guessed) +
        " is neither in the key nor given by --dims; guessing the largest "
        "key value (" +
        std::to_string(guess.largest) + ") makes it " +
        std::to_string(elements) + " elements, fewer than " +
        guess.keyProductText + " = " + std::to_string(guess.keyProduct) +
        ", which the kernel may index: give its size with --dims a" +
        std::to_string(a) + "=" + guess.keyProductText +
        " (or the size it has)");
  return view;
}

/// The value of scalar argument `a`: its key value, else --arg, else 1 for
/// a float; throws for an integer outside the key that --arg does not give.
ArgValue scalarValue(const ArgSpec &spec, size_t a, const KnownArgs &known,
                     const ArgSettings &settings, const std::string &where) {
  auto given = settings.scalars.find(static_cast<int>(a));
  bool isGiven = given != settings.scalars.end();
  if (known.values[a]) {
    if (isGiven)
      bad(where + ": --arg a" + std::to_string(a) + ": argument " +
          std::to_string(a) + " is a key value (give it in the shape)");
    ArgValue arg;
    arg.type = spec.type;
    arg.intValue = *known.values[a];
    return arg;
  }
  if (isGiven)
    return scalarArg(spec.type, given->second, static_cast<int>(a));
  if (isFloatType(spec.type))
    return scalarArg(spec.type, "1", static_cast<int>(a));
  bad(where + ": argument " + std::to_string(a) + " (an " +
      scalarTypeName(spec.type) +
      " scalar) is not in the key: give its value with --arg a" +
      std::to_string(a) + "=VALUE");
}

} // namespace

std::optional<DimValue> parseDimValue(const std::string &text) {
  std::optional<Expr> expr = DimParser(text).parse();
  if (!expr || checkExpr(*expr, kMaxArgs))
    return std::nullopt;
  return DimValue{std::move(*expr)};
}

std::vector<Shape> parseShapeSpec(const std::string &spec) {
  std::vector<std::vector<int64_t>> lists;
  std::istringstream items(spec);
  std::string item;
  while (items >> item) {
    size_t equals = item.find('=');
    int key = parseIndex(item.substr(0, equals), 'd');
    if (equals == std::string::npos || key < 0)
      bad("shape '" + spec + "': '" + item +
          "' is not dI=VALUES (I: the key index)");
    if (lists.size() <= static_cast<size_t>(key))
      lists.resize(key + 1);
    if (!lists[key].empty())
      bad("shape '" + spec + "': d" + std::to_string(key) + " given twice");
    for (const std::string &values : split(item.substr(equals + 1), ','))
      if (!parseValues(values, lists[key]))
        bad("shape '" + spec + "': '" + values +
            "' is not an integer or a range A..B (0 < A <= B)");
  }
  if (lists.empty())
    bad("shape '" + spec + "' gives no key value");
  for (size_t k = 0; k < lists.size(); ++k)
    if (lists[k].empty())
      bad("shape '" + spec + "' gives no value for d" + std::to_string(k));
  std::vector<Shape> shapes = {{}};
  for (const std::vector<int64_t> &list : lists) {
    std::vector<Shape> grown;
    for (const Shape &shape : shapes)
      for (int64_t value : list) {
        grown.push_back(shape);
        grown.back().push_back(value);
      }
    shapes = std::move(grown);
  }
  return shapes;
}

void parseDims(const std::string &text, ArgSettings &settings) {
  size_t equals = text.find('=');
  int arg = parseIndex(text.substr(0, equals), 'a');
  if (equals == std::string::npos || arg < 0)
    bad("--dims '" + text + "': expected aI=SIZE,SIZE... (I: the argument)");
  std::vector<DimValue> dims;
  for (const std::string &item : split(text.substr(equals + 1), ',')) {
    std::optional<DimValue> dim = parseDimValue(item);
    if (!dim)
      bad("--dims '" + text + "': '" + item +
          "' is not an integer expression of the key values dI (d0*d1, "
          "2*d0 + 1, (d1 + 3) / 4: + - * / % and parentheses)");
    dims.push_back(std::move(*dim));
  }
  settings.dims[arg] = std::move(dims);
}

void parseArg(const std::string &text, ArgSettings &settings) {
  size_t equals = text.find('=');
  int arg = parseIndex(text.substr(0, equals), 'a');
  if (equals == std::string::npos || arg < 0)
    bad("--arg '" + text + "': expected aI=VALUE (I: the argument)");
  settings.scalars[arg] = text.substr(equals + 1);
}

HostInputs::HostInputs(const Kernel &kernel, const Shape &shape,
                       const ArgSettings &settings, std::mt19937 &rng,
                       unsigned threads) {
  std::string where = "kernel '" + kernel.name + "'";
  KnownArgs known = knownFromKey(kernel, shape, where);
  addGivenDims(known, kernel, shape, settings, where);
  SizeGuess guess(shape);
  for (size_t a = 0; a < kernel.args.size(); ++a) {
    const ArgSpec &spec = kernel.args[a];
    if (spec.kind != ArgSpec::Kind::MemRef) {
      args.push_back(scalarValue(spec, a, known, settings, where));
      continue;
    }
    if (settings.scalars.count(static_cast<int>(a)))
      bad(where + ": --arg a" + std::to_string(a) + ": argument " +
          std::to_string(a) + " is a memref (use --dims)");
    uint64_t elements = 0;
    args.push_back(
        toArg(memrefView(spec, a, known.sizes[a], guess, where, elements)));
    // Not zeroed: the fill's threads touch its pages first.
    Values &memref = values.emplace_back();
    memref.size = elements * scalarTypeSize(spec.type);
    memref.bytes.reset(new char[memref.size]);
    fillRandom(spec.type, memref.bytes.get(), elements, rng,
               std::max(1u, threads));
  }
  for (const auto &[arg, text] : settings.scalars)
    if (static_cast<size_t>(arg) >= kernel.args.size())
      bad(where + ": --arg a" + std::to_string(arg) + ": the kernel has " +
          std::to_string(kernel.args.size()) + " arguments");
}

ShapeArgs::ShapeArgs(Backend &backend, const HostInputs &inputs)
    : backend(backend), args(inputs.args) {
  try {
    size_t next = 0;
    for (ArgValue &arg : args) {
      if (arg.kind != ArgSpec::Kind::MemRef)
        continue;
      const HostInputs::Values &memref = inputs.values[next++];
      void *device = backend.allocate(memref.size);
      buffers.push_back(device);
      backend.copy(device, memref.bytes.get(), memref.size,
                   CopyKind::HostToDevice, nullptr);
      arg.memref.allocated = arg.memref.aligned = device;
    }
  } catch (...) {
    for (void *buffer : buffers)
      backend.deallocate(buffer);
    throw;
  }
}

ShapeArgs::ShapeArgs(Backend &backend, const Kernel &kernel, const Shape &shape,
                     const ArgSettings &settings, std::mt19937 &rng)
    : ShapeArgs(backend, HostInputs(kernel, shape, settings, rng,
                                    std::thread::hardware_concurrency())) {}

ShapeArgs::~ShapeArgs() {
  for (void *buffer : buffers)
    backend.deallocate(buffer);
}

} // namespace tuna::tune
