//===- SearchSpace.cpp - The valid configurations of a search -------------===//

#include "tuna/runtime/Error.h"
#include "tuna/runtime/Search.h"

#include <algorithm>
#include <limits>
#include <set>

namespace tuna::search {

namespace {

Error invalid(const std::string &message) {
  return Error(ErrorCode::InvalidArgument, "search space: " + message);
}

/// Checks the parameters; returns the number of configurations of their
/// product, saturated at the largest uint64_t.
uint64_t checkParameters(const std::vector<Parameter> &parameters) {
  if (parameters.empty())
    throw invalid("no parameters");
  uint64_t product = 1;
  std::set<std::string> names;
  for (const Parameter &parameter : parameters) {
    if (!names.insert(parameter.name).second)
      throw invalid("parameter '" + parameter.name + "' is declared twice");
    if (parameter.values.empty())
      throw invalid("parameter '" + parameter.name + "' has no values");
    std::set<int64_t> seen;
    for (int64_t value : parameter.values)
      if (!seen.insert(value).second)
        throw invalid("parameter '" + parameter.name + "' lists value " +
                      std::to_string(value) + " twice");
    uint64_t n = parameter.values.size();
    product = product > std::numeric_limits<uint64_t>::max() / n
                  ? std::numeric_limits<uint64_t>::max()
                  : product * n;
  }
  return product;
}

std::string overLimit(size_t count, size_t limit) {
  return "has " + std::to_string(count) +
         " valid configurations, over the limit of " + std::to_string(limit);
}

} // namespace

Space Space::product(std::vector<Parameter> parameters,
                     const std::function<bool(const Values &)> &valid,
                     size_t maxConfigurations, size_t maxProduct) {
  uint64_t total = checkParameters(parameters);
  if (total > maxProduct)
    throw invalid("the product of the parameters' values has " +
                  (total == std::numeric_limits<uint64_t>::max()
                       ? std::string("more than 2^64")
                       : std::to_string(total)) +
                  " configurations, over the limit of " +
                  std::to_string(maxProduct) + " to enumerate");
  Space space;
  space.parameters_ = std::move(parameters);
  size_t rank = space.rank();
  std::vector<int> indices(rank, 0);
  Values values(rank);
  for (uint64_t n = 0; n < total; ++n) {
    for (size_t p = 0; p < rank; ++p)
      values[p] = space.parameters_[p].values[indices[p]];
    if (!valid || valid(values)) {
      if (space.count == maxConfigurations)
        throw invalid(overLimit(maxConfigurations + 1, maxConfigurations) +
                      " (or more)");
      space.add(indices);
    }
    for (size_t p = rank; p-- > 0;) {
      if (++indices[p] < static_cast<int>(space.parameters_[p].values.size()))
        break;
      indices[p] = 0;
    }
  }
  if (space.count == 0)
    throw invalid("no configuration of the " + std::to_string(total) +
                  " is valid");
  return space;
}

Space Space::list(std::vector<Parameter> parameters,
                  const std::vector<Values> &configurations,
                  size_t maxConfigurations) {
  if (checkParameters(parameters) == std::numeric_limits<uint64_t>::max())
    throw invalid("too many parameter values to index");
  if (configurations.empty())
    throw invalid("the list of configurations is empty");
  if (configurations.size() > maxConfigurations)
    throw invalid(overLimit(configurations.size(), maxConfigurations));
  Space space;
  space.parameters_ = std::move(parameters);
  std::vector<int> indices(space.rank());
  for (size_t c = 0; c < configurations.size(); ++c) {
    const Values &values = configurations[c];
    std::string where = "configuration " + std::to_string(c);
    if (values.size() != space.rank())
      throw invalid(where + " has " + std::to_string(values.size()) +
                    " values, expected one per parameter (" +
                    std::to_string(space.rank()) + ")");
    for (size_t p = 0; p < space.rank(); ++p) {
      const std::vector<int64_t> &candidates = space.parameters_[p].values;
      auto it = std::find(candidates.begin(), candidates.end(), values[p]);
      if (it == candidates.end())
        throw invalid(where + ": " + space.parameters_[p].name + "=" +
                      std::to_string(values[p]) +
                      " is not one of the parameter's values");
      indices[p] = static_cast<int>(it - candidates.begin());
    }
    if (space.find(indices))
      throw invalid(where + " (" + space.describe(*space.find(indices)) +
                    ") is listed twice");
    space.add(indices);
  }
  return space;
}

void Space::add(const std::vector<int> &indices) {
  ids.emplace(encode(indices.data()), count++);
  points.insert(points.end(), indices.begin(), indices.end());
}

uint64_t Space::encode(const int *indices) const {
  uint64_t code = 0;
  for (size_t p = 0; p < rank(); ++p)
    code = code * parameters_[p].values.size() + indices[p];
  return code;
}

Values Space::values(size_t id) const {
  Values values(rank());
  for (size_t p = 0; p < rank(); ++p)
    values[p] = parameters_[p].values[index(id, p)];
  return values;
}

std::optional<size_t> Space::find(const std::vector<int> &indices) const {
  if (indices.size() != rank())
    return std::nullopt;
  for (size_t p = 0; p < rank(); ++p)
    if (indices[p] < 0 ||
        indices[p] >= static_cast<int>(parameters_[p].values.size()))
      return std::nullopt;
  auto it = ids.find(encode(indices.data()));
  if (it == ids.end())
    return std::nullopt;
  return it->second;
}

std::optional<size_t> Space::findValues(const Values &values) const {
  if (values.size() != rank())
    return std::nullopt;
  std::vector<int> indices(rank());
  for (size_t p = 0; p < rank(); ++p) {
    const std::vector<int64_t> &candidates = parameters_[p].values;
    auto it = std::find(candidates.begin(), candidates.end(), values[p]);
    if (it == candidates.end())
      return std::nullopt;
    indices[p] = static_cast<int>(it - candidates.begin());
  }
  return find(indices);
}

std::string Space::describe(size_t id) const {
  std::string text;
  for (size_t p = 0; p < rank(); ++p) {
    if (p)
      text += ", ";
    text += parameters_[p].name + "=" +
            std::to_string(parameters_[p].values[index(id, p)]);
  }
  return text;
}

} // namespace tuna::search
