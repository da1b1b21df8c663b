//===- Communicator.cpp - The ranks of a job that tune together -----------===//

#include "tuna/runtime/Communicator.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>

namespace tuna {

Communicator::~Communicator() = default;

std::vector<std::string> allGatherStrings(Communicator &communicator,
                                          const std::string &mine,
                                          double timeoutMs) {
  size_t ranks = static_cast<size_t>(communicator.size());
  uint64_t length = mine.size();
  std::vector<uint64_t> lengths(ranks);
  communicator.allGather(&length, sizeof(length), lengths.data(), timeoutMs);
  size_t longest = *std::max_element(lengths.begin(), lengths.end());
  std::string padded = mine;
  padded.resize(longest);
  std::string all(longest * ranks, '\0');
  if (longest)
    communicator.allGather(padded.data(), longest, all.data(), timeoutMs);
  std::vector<std::string> strings;
  for (size_t r = 0; r < ranks; ++r)
    strings.push_back(all.substr(r * longest, lengths[r]));
  return strings;
}

namespace {
std::mutex defaultMutex;
std::shared_ptr<Communicator> defaultInstance;
} // namespace

void setDefaultCommunicator(std::shared_ptr<Communicator> communicator) {
  std::lock_guard<std::mutex> lock(defaultMutex);
  defaultInstance = std::move(communicator);
}

std::shared_ptr<Communicator> defaultCommunicator() {
  std::lock_guard<std::mutex> lock(defaultMutex);
  return defaultInstance;
}

} // namespace tuna
