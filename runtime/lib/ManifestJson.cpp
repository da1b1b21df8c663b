//===- ManifestJson.cpp - The JSON manifest of a bundle file --------------===//

#include "ManifestJson.h"

#include "tuna/runtime/Error.h"
#include "tuna/runtime/Expr.h"
#include "tuna/runtime/ScalarType.h"

#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cstdio>
#include <optional>

namespace tuna {

using Json = nlohmann::ordered_json;

namespace {

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

const char *bucketName(Bucket bucket) {
  switch (bucket) {
  case Bucket::Exact:
    return "exact";
  case Bucket::Pow2:
    return "pow2";
  case Bucket::Bins:
    return "bins";
  }
  return "";
}

std::string hex64(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016" PRIx64, value);
  return text;
}

Json exprToJson(const Expr &expr) {
  Json tokens = Json::array();
  for (const ExprNode &node : expr) {
    if (node.op == ExprNode::Op::Const)
      tokens.push_back(node.value);
    else if (node.op == ExprNode::Op::Dim)
      tokens.push_back("d" + std::to_string(node.value));
    else
      tokens.push_back(exprOpToken(node.op));
  }
  return tokens;
}

Json exprsToJson(const std::array<Expr, 3> &exprs) {
  Json list = Json::array();
  for (const Expr &expr : exprs)
    list.push_back(exprToJson(expr));
  return list;
}

/// A variant's hidden parameters; written only when it has some.
Json variantTensorMapsToJson(const Variant &variant) {
  Json maps = Json::array();
  for (const VariantTensorMap &map : variant.tensorMaps) {
    Json box = Json::array();
    for (const Expr &entry : map.box)
      box.push_back(exprToJson(entry));
    maps.push_back({{"map", map.map},
                    {"box", std::move(box)},
                    {"swizzle", map.swizzleBytes}});
  }
  return maps;
}

Json variantToJson(const Variant &variant) {
  Json config = Json::array();
  for (const auto &[param, value] : variant.config)
    config.push_back(Json::array({param, value}));
  Json constraints = Json::array();
  for (const Constraint &constraint : variant.constraints)
    constraints.push_back({{"expr", exprToJson(constraint.expr)},
                           {"kind", constraint.isEquality ? "eq" : "ge"}});
  Json code = Json::array();
  for (const VariantCode &entry : variant.code) {
    const Resources &res = entry.resources;
    code.push_back({{"object", entry.object},
                    {"symbol", entry.symbol},
                    {"resources",
                     {{"registers", res.registers},
                      {"sharedBytes", res.sharedBytes},
                      {"localBytes", res.localBytes},
                      {"spillBytes", res.spillBytes}}}});
  }
  Json json = {{"name", variant.name},
               {"config", std::move(config)},
               {"grid", exprsToJson(variant.grid)},
               {"block", exprsToJson(variant.block)},
               {"sharedMemBytes", exprToJson(variant.sharedMemBytes)},
               {"constraints", std::move(constraints)}};
  if (!variant.tensorMaps.empty())
    json["tensorMaps"] = variantTensorMapsToJson(variant);
  if (variant.minBlocks != 1)
    json["minBlocks"] = variant.minBlocks;
  json["code"] = std::move(code);
  return json;
}

Json kernelToJson(const Kernel &kernel) {
  Json args = Json::array();
  for (const ArgSpec &arg : kernel.args)
    args.push_back(
        {{"kind", arg.kind == ArgSpec::Kind::MemRef ? "memref" : "scalar"},
         {"type", scalarTypeName(arg.type)},
         {"rank", arg.rank},
         {"written", arg.written}});
  Json key = Json::array();
  for (const KeySpec &spec : kernel.key)
    key.push_back({{"arg", spec.arg},
                   {"dim", spec.dim},
                   {"bucket", bucketName(spec.bucket)},
                   {"bins", spec.bins}});
  Json variants = Json::array();
  for (const Variant &variant : kernel.variants)
    variants.push_back(variantToJson(variant));
  Json json = {{"name", kernel.name},
               {"sourceHash", kernel.sourceHash},
               {"args", std::move(args)},
               {"params", kernel.params},
               {"key", std::move(key)}};
  if (!kernel.tensorMaps.empty()) {
    Json maps = Json::array();
    for (const TensorMapSpec &map : kernel.tensorMaps) {
      Json entry = {{"arg", map.arg},
                    {"l2Promotion", map.l2PromotionBytes},
                    {"oobFill", map.oobFillNaN ? "nan" : "zero"}};
      if (!map.shape.empty()) {
        Json shape = Json::array();
        for (const Expr &size : map.shape)
          shape.push_back(exprToJson(size));
        entry["shape"] = std::move(shape);
      }
      maps.push_back(std::move(entry));
    }
    json["tensorMaps"] = std::move(maps);
  }
  json["defaultVariant"] = kernel.defaultVariant;
  json["variants"] = std::move(variants);
  return json;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// Typed access to JSON values; failures name the JSON path.
class Reader {
public:
  explicit Reader(std::string_view origin) : origin(origin) {}

  [[noreturn]] void fail(const std::string &path,
                         const std::string &problem) const {
    throw Error(ErrorCode::BadBundle, std::string(origin) +
                                          ": bad bundle manifest: " + path +
                                          ": " + problem);
  }

  const Json &member(const Json &object, const char *name,
                     const std::string &path) const {
    if (!object.is_object())
      fail(path, "expected an object");
    auto it = object.find(name);
    if (it == object.end())
      fail(path, std::string("missing field '") + name + "'");
    return *it;
  }

  const Json &array(const Json &value, const std::string &path) const {
    if (!value.is_array())
      fail(path, "expected an array");
    return value;
  }

  const Json &array(const Json &object, const char *name,
                    const std::string &path) const {
    return array(member(object, name, path), path + "." + name);
  }

  int64_t integer(const Json &value, const std::string &path) const {
    if (value.is_number_unsigned() &&
        value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      fail(path, "integer out of range");
    if (!value.is_number_integer())
      fail(path, "expected an integer");
    return value.get<int64_t>();
  }

  int64_t integer(const Json &object, const char *name,
                  const std::string &path) const {
    return integer(member(object, name, path), path + "." + name);
  }

  int small(const Json &object, const char *name,
            const std::string &path) const {
    int64_t value = integer(object, name, path);
    if (value < INT32_MIN || value > INT32_MAX)
      fail(path + "." + name, "integer out of range");
    return static_cast<int>(value);
  }

  uint64_t unsignedInteger(const Json &object, const char *name,
                           const std::string &path) const {
    int64_t value = integer(object, name, path);
    if (value < 0)
      fail(path + "." + name, "expected a non-negative integer");
    return static_cast<uint64_t>(value);
  }

  std::string string(const Json &value, const std::string &path) const {
    if (!value.is_string())
      fail(path, "expected a string");
    return value.get<std::string>();
  }

  std::string string(const Json &object, const char *name,
                     const std::string &path) const {
    return string(member(object, name, path), path + "." + name);
  }

  bool boolean(const Json &object, const char *name,
               const std::string &path) const {
    const Json &value = member(object, name, path);
    if (!value.is_boolean())
      fail(path + "." + name, "expected true or false");
    return value.get<bool>();
  }

  Expr expr(const Json &value, const std::string &path) const {
    Expr expr;
    array(value, path);
    for (size_t i = 0; i < value.size(); ++i) {
      const Json &token = value[i];
      std::string tokenPath = path + "[" + std::to_string(i) + "]";
      ExprNode node;
      if (token.is_number()) {
        node.op = ExprNode::Op::Const;
        node.value = integer(token, tokenPath);
      } else {
        std::string text = string(token, tokenPath);
        if (text == "+") {
          node.op = ExprNode::Op::Add;
        } else if (text == "*") {
          node.op = ExprNode::Op::Mul;
        } else if (text == "mod") {
          node.op = ExprNode::Op::Mod;
        } else if (text == "floordiv") {
          node.op = ExprNode::Op::FloorDiv;
        } else if (text == "ceildiv") {
          node.op = ExprNode::Op::CeilDiv;
        } else if (text.size() > 1 && text[0] == 'd' &&
                   text.find_first_not_of("0123456789", 1) ==
                       std::string::npos &&
                   text.size() < 10) {
          node.op = ExprNode::Op::Dim;
          node.value = std::stoll(text.substr(1));
        } else {
          fail(tokenPath, "unknown expression token '" + text + "'");
        }
      }
      expr.push_back(node);
    }
    return expr;
  }

  std::array<Expr, 3> exprs(const Json &object, const char *name,
                            const std::string &path) const {
    std::string listPath = path + "." + name;
    const Json &list = array(object, name, path);
    if (list.size() != 3)
      fail(listPath, "expected 3 expressions (x, y, z)");
    std::array<Expr, 3> result;
    for (size_t i = 0; i < 3; ++i)
      result[i] = expr(list[i], listPath + "[" + std::to_string(i) + "]");
    return result;
  }

private:
  std::string_view origin;
};

ArgSpec readArg(const Reader &in, const Json &json, const std::string &path) {
  ArgSpec arg;
  std::string kind = in.string(json, "kind", path);
  if (kind == "memref")
    arg.kind = ArgSpec::Kind::MemRef;
  else if (kind == "scalar")
    arg.kind = ArgSpec::Kind::Scalar;
  else
    in.fail(path + ".kind", "expected \"memref\" or \"scalar\"");
  std::string type = in.string(json, "type", path);
  std::optional<ScalarType> parsed = parseScalarType(type);
  if (!parsed)
    in.fail(path + ".type", "unknown type '" + type + "'");
  arg.type = *parsed;
  arg.rank = in.small(json, "rank", path);
  arg.written = in.boolean(json, "written", path);
  return arg;
}

KeySpec readKey(const Reader &in, const Json &json, const std::string &path) {
  KeySpec spec;
  spec.arg = in.small(json, "arg", path);
  spec.dim = in.small(json, "dim", path);
  std::string bucket = in.string(json, "bucket", path);
  if (bucket == "exact")
    spec.bucket = Bucket::Exact;
  else if (bucket == "pow2")
    spec.bucket = Bucket::Pow2;
  else if (bucket == "bins")
    spec.bucket = Bucket::Bins;
  else
    in.fail(path + ".bucket", "expected \"exact\", \"pow2\" or \"bins\"");
  const Json &bins = in.array(json, "bins", path);
  for (size_t i = 0; i < bins.size(); ++i)
    spec.bins.push_back(
        in.integer(bins[i], path + ".bins[" + std::to_string(i) + "]"));
  return spec;
}

/// The list `name` of `json`, or null when the field is absent (optional
/// fields of version 2).
const Json *optionalArray(const Reader &in, const Json &json, const char *name,
                          const std::string &path) {
  if (!json.contains(name))
    return nullptr;
  return &in.array(json, name, path);
}

TensorMapSpec readTensorMap(const Reader &in, const Json &json,
                            const std::string &path) {
  TensorMapSpec map;
  map.arg = in.small(json, "arg", path);
  map.l2PromotionBytes = in.small(json, "l2Promotion", path);
  std::string fill = in.string(json, "oobFill", path);
  if (fill != "zero" && fill != "nan")
    in.fail(path + ".oobFill", "expected \"zero\" or \"nan\"");
  map.oobFillNaN = fill == "nan";
  if (const Json *shape = optionalArray(in, json, "shape", path))
    for (size_t i = 0; i < shape->size(); ++i)
      map.shape.push_back(
          in.expr((*shape)[i], path + ".shape[" + std::to_string(i) + "]"));
  return map;
}

VariantTensorMap readVariantTensorMap(const Reader &in, const Json &json,
                                      const std::string &path) {
  VariantTensorMap map;
  map.map = in.small(json, "map", path);
  const Json &box = in.array(json, "box", path);
  for (size_t i = 0; i < box.size(); ++i)
    map.box.push_back(
        in.expr(box[i], path + ".box[" + std::to_string(i) + "]"));
  map.swizzleBytes = in.small(json, "swizzle", path);
  return map;
}

Variant readVariant(const Reader &in, const Json &json,
                    const std::string &path) {
  Variant variant;
  variant.name = in.string(json, "name", path);
  const Json &config = in.array(json, "config", path);
  for (size_t i = 0; i < config.size(); ++i) {
    std::string entryPath = path + ".config[" + std::to_string(i) + "]";
    const Json &entry = in.array(config[i], entryPath);
    if (entry.size() != 2)
      in.fail(entryPath, "expected [name, value]");
    variant.config.emplace_back(in.string(entry[0], entryPath + "[0]"),
                                in.integer(entry[1], entryPath + "[1]"));
  }
  variant.grid = in.exprs(json, "grid", path);
  variant.block = in.exprs(json, "block", path);
  variant.sharedMemBytes = in.expr(in.member(json, "sharedMemBytes", path),
                                   path + ".sharedMemBytes");
  const Json &constraints = in.array(json, "constraints", path);
  for (size_t i = 0; i < constraints.size(); ++i) {
    std::string entryPath = path + ".constraints[" + std::to_string(i) + "]";
    Constraint constraint;
    constraint.expr = in.expr(in.member(constraints[i], "expr", entryPath),
                              entryPath + ".expr");
    std::string kind = in.string(constraints[i], "kind", entryPath);
    if (kind != "eq" && kind != "ge")
      in.fail(entryPath + ".kind", "expected \"eq\" or \"ge\"");
    constraint.isEquality = kind == "eq";
    variant.constraints.push_back(std::move(constraint));
  }
  if (const Json *maps = optionalArray(in, json, "tensorMaps", path))
    for (size_t i = 0; i < maps->size(); ++i)
      variant.tensorMaps.push_back(readVariantTensorMap(
          in, (*maps)[i], path + ".tensorMaps[" + std::to_string(i) + "]"));
  if (json.contains("minBlocks"))
    variant.minBlocks = in.small(json, "minBlocks", path);
  const Json &code = in.array(json, "code", path);
  for (size_t i = 0; i < code.size(); ++i) {
    std::string entryPath = path + ".code[" + std::to_string(i) + "]";
    VariantCode entry;
    entry.object = in.small(code[i], "object", entryPath);
    entry.symbol = in.string(code[i], "symbol", entryPath);
    const Json &res = in.member(code[i], "resources", entryPath);
    std::string resPath = entryPath + ".resources";
    entry.resources.registers = in.small(res, "registers", resPath);
    entry.resources.sharedBytes = in.integer(res, "sharedBytes", resPath);
    entry.resources.localBytes = in.integer(res, "localBytes", resPath);
    entry.resources.spillBytes = in.integer(res, "spillBytes", resPath);
    variant.code.push_back(std::move(entry));
  }
  return variant;
}

Kernel readKernel(const Reader &in, const Json &json, const std::string &path) {
  Kernel kernel;
  kernel.name = in.string(json, "name", path);
  kernel.sourceHash = in.string(json, "sourceHash", path);
  const Json &args = in.array(json, "args", path);
  for (size_t i = 0; i < args.size(); ++i)
    kernel.args.push_back(
        readArg(in, args[i], path + ".args[" + std::to_string(i) + "]"));
  const Json &params = in.array(json, "params", path);
  for (size_t i = 0; i < params.size(); ++i)
    kernel.params.push_back(
        in.string(params[i], path + ".params[" + std::to_string(i) + "]"));
  const Json &key = in.array(json, "key", path);
  for (size_t i = 0; i < key.size(); ++i)
    kernel.key.push_back(
        readKey(in, key[i], path + ".key[" + std::to_string(i) + "]"));
  if (const Json *maps = optionalArray(in, json, "tensorMaps", path))
    for (size_t i = 0; i < maps->size(); ++i)
      kernel.tensorMaps.push_back(readTensorMap(
          in, (*maps)[i], path + ".tensorMaps[" + std::to_string(i) + "]"));
  kernel.defaultVariant = in.small(json, "defaultVariant", path);
  const Json &variants = in.array(json, "variants", path);
  for (size_t i = 0; i < variants.size(); ++i)
    kernel.variants.push_back(readVariant(
        in, variants[i], path + ".variants[" + std::to_string(i) + "]"));
  return kernel;
}

} // namespace

std::string manifestToJson(const Bundle &bundle,
                           const std::vector<BlobPlacement> &blobs) {
  Json objects = Json::array();
  for (size_t i = 0; i < bundle.objects.size(); ++i) {
    const Object &object = bundle.objects[i];
    objects.push_back({{"target", object.target},
                       {"format", object.format},
                       {"triple", object.triple},
                       {"grid_dependency", object.gridDependency},
                       {"module_state", object.moduleState},
                       {"offset", blobs[i].offset},
                       {"size", blobs[i].size},
                       {"fnv1a64", hex64(blobs[i].hash)}});
  }
  Json kernels = Json::array();
  for (const Kernel &kernel : bundle.kernels)
    kernels.push_back(kernelToJson(kernel));
  Json manifest = {{"tunaVersion", bundle.tunaVersion},
                   {"objects", std::move(objects)},
                   {"kernels", std::move(kernels)}};
  return manifest.dump(1);
}

void manifestFromJson(std::string_view text, std::string_view origin,
                      Bundle &bundle, std::vector<BlobPlacement> &blobs) {
  Json json;
  try {
    json = Json::parse(text.begin(), text.end());
  } catch (const Json::exception &e) {
    throw Error(ErrorCode::BadBundle,
                std::string(origin) + ": bad bundle manifest: " + e.what());
  }
  Reader in(origin);
  bundle.tunaVersion = in.string(json, "tunaVersion", "manifest");
  const Json &objects = in.array(json, "objects", "manifest");
  for (size_t i = 0; i < objects.size(); ++i) {
    std::string path = "objects[" + std::to_string(i) + "]";
    Object object;
    object.target = in.string(objects[i], "target", path);
    object.format = in.string(objects[i], "format", path);
    object.triple = in.string(objects[i], "triple", path);
    // Absent in bundles made before it existed: their kernels do not wait.
    object.gridDependency =
        objects[i].contains("grid_dependency") &&
        in.boolean(objects[i], "grid_dependency", path);
    // Absent in bundles made before it existed: their launches are not
    // ordered.
    object.moduleState = objects[i].contains("module_state") &&
                         in.boolean(objects[i], "module_state", path);
    BlobPlacement blob;
    blob.offset = in.unsignedInteger(objects[i], "offset", path);
    blob.size = in.unsignedInteger(objects[i], "size", path);
    std::string hash = in.string(objects[i], "fnv1a64", path);
    if (hash.size() != 16 ||
        hash.find_first_not_of("0123456789abcdef") != std::string::npos)
      in.fail(path + ".fnv1a64", "expected 16 lower-case hex digits");
    blob.hash = std::stoull(hash, nullptr, 16);
    bundle.objects.push_back(std::move(object));
    blobs.push_back(blob);
  }
  const Json &kernels = in.array(json, "kernels", "manifest");
  for (size_t i = 0; i < kernels.size(); ++i)
    bundle.kernels.push_back(
        readKernel(in, kernels[i], "kernels[" + std::to_string(i) + "]"));
}

} // namespace tuna
