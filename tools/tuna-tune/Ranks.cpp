//===- Ranks.cpp - tuna-tune spread over the ranks of an MPI job ----------===//

#include "Ranks.h"

#include "tuna/runtime/Bundle.h"
#include "tuna/runtime/Error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#ifdef TUNA_TUNE_WITH_MPI
#include "tuna/mpi/Mpi.h"
#endif

namespace tuna::tune {

namespace {
using Json = nlohmann::json;

/// Ranks wait for each other's whole share of the tuning.
constexpr double kGatherTimeoutMs = 7 * 24 * 3600e3;

/// Set by mpirun (OpenMPI), or by the PMI of MPICH and Slurm.
bool launchedByMpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") ||
         std::getenv("PMIX_RANK");
}
} // namespace

Ranks::Ranks(int &argc, char **&argv) {
#ifdef TUNA_TUNE_WITH_MPI
  if (!launchedByMpi())
    return;
  MPI_Init(&argc, &argv);
  communicator = mpi::communicator(MPI_COMM_WORLD);
  if (const char *text = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK"))
    local = std::atoi(text);
  else if (const char *text = std::getenv("MPI_LOCALRANKID"))
    local = std::atoi(text);
#else
  (void)argc;
  (void)argv;
  (void)launchedByMpi;
#endif
}

Ranks::~Ranks() {
#ifdef TUNA_TUNE_WITH_MPI
  if (communicator) {
    communicator.reset();
    MPI_Finalize();
  }
#endif
}

void Ranks::checkSameDevice(const DeviceInfo &info) {
  if (!communicator)
    return;
  std::vector<std::string> devices = allGatherStrings(
      *communicator, info.name + " (" + info.arch + ")", kGatherTimeoutMs);
  std::string differences;
  for (size_t r = 1; r < devices.size(); ++r)
    if (devices[r] != devices[0])
      differences += "\n  rank " + std::to_string(r) + ": " + devices[r];
  if (!differences.empty())
    throw Error(ErrorCode::Unsupported,
                "the ranks run on different device models (rank 0: " +
                    devices[0] + "); tuning is spread over one model only:" +
                    differences);
}

void Ranks::checkSameWork(const Module &module,
                          const std::vector<TunedKernel *> &kernels,
                          const std::vector<std::vector<int64_t>> &shapes) {
  if (!communicator)
    return;
  Json names = Json::array(), hashes = Json::array();
  for (const TunedKernel *kernel : kernels) {
    names.push_back(kernel->spec().name);
    hashes.push_back(kernel->spec().sourceHash);
  }
  char bundle[17];
  std::snprintf(
      bundle, sizeof(bundle), "%016llx",
      static_cast<unsigned long long>(fnv1a64(writeBundle(module.bundle()))));
  Json mine = {{"kernels", names},
               {"source hashes", hashes},
               {"bundle", bundle},
               {"shapes", shapes}};
  std::vector<std::string> all =
      allGatherStrings(*communicator, mine.dump(), kGatherTimeoutMs);
  Json first = Json::parse(all[0]);
  std::string differences;
  for (size_t r = 1; r < all.size(); ++r) {
    Json other = Json::parse(all[r]);
    std::string rank = "\n  rank " + std::to_string(r);
    if (other["kernels"] != first["kernels"])
      differences += rank + " tunes kernels " + other["kernels"].dump() +
                     ", rank 0 " + first["kernels"].dump();
    else if (other["source hashes"] != first["source hashes"])
      for (size_t k = 0; k < first["kernels"].size(); ++k) {
        if (other["source hashes"][k] == first["source hashes"][k])
          continue;
        differences += rank + " has kernel " + first["kernels"][k].dump() +
                       " of source hash " + other["source hashes"][k].dump() +
                       ", rank 0 " + first["source hashes"][k].dump();
        break;
      }
    else if (other["bundle"] != first["bundle"])
      differences += rank + " has another bundle (content hash " +
                     other["bundle"].get<std::string>() + ", rank 0 " +
                     first["bundle"].get<std::string>() + ")";
    else if (other["shapes"] != first["shapes"])
      differences += rank + " has shapes " + other["shapes"].dump() +
                     ", rank 0 " + first["shapes"].dump();
  }
  if (!differences.empty())
    throw Error(ErrorCode::InvalidArgument,
                "the ranks do not tune the same work (run every rank with "
                "the same bundle, kernels and shapes: they split rank 0's "
                "work, and rank 0 writes one database):" +
                    differences);
}

std::vector<int> Ranks::owners(const std::vector<std::string> &buckets) const {
  std::map<std::string, int> owner;
  std::vector<int> result;
  for (const std::string &bucket : buckets) {
    auto [it, fresh] =
        owner.emplace(bucket, static_cast<int>(owner.size()) % size());
    result.push_back(it->second);
  }
  return result;
}

std::vector<ItemResult> Ranks::gather(std::vector<ItemResult> mine,
                                      const Module &module) {
  if (!communicator)
    return mine;
  Json items = Json::array();
  for (const ItemResult &item : mine) {
    Json value = {{"item", item.item},
                  {"output", item.output},
                  {"failed", item.failed}};
    if (item.decided)
      value["decision"] = {{"kernel", item.decision.kernel->name},
                           {"key_values", item.decision.keyValues},
                           {"report", Json::parse(reportToJson(item.decision.report))}};
    items.push_back(std::move(value));
  }
  std::vector<std::string> all =
      allGatherStrings(*communicator, items.dump(), kGatherTimeoutMs);
  if (rank() != 0)
    return mine;
  std::vector<ItemResult> merged;
  for (size_t r = 0; r < all.size(); ++r)
    for (const Json &value : Json::parse(all[r])) {
      ItemResult &item = merged.emplace_back();
      item.rank = static_cast<int>(r);
      item.item = value["item"].get<size_t>();
      item.output = value["output"].get<std::string>();
      item.failed = value["failed"].get<bool>();
      if (!value.contains("decision"))
        continue;
      const Json &decision = value["decision"];
      std::string name = decision["kernel"].get<std::string>();
      for (const Kernel &kernel : module.bundle().kernels)
        if (kernel.name == name)
          item.decision.kernel = &kernel;
      item.decision.keyValues = decision["key_values"].get<Shape>();
      item.decision.report = reportFromJson(decision["report"].dump());
      item.decided = true;
    }
  std::sort(merged.begin(), merged.end(),
            [](const ItemResult &a, const ItemResult &b) {
              return a.item < b.item;
            });
  return merged;
}

std::vector<ItemResult> Ranks::keepAgreed(std::vector<ItemResult> all) const {
  std::vector<ItemResult> kept;
  for (ItemResult &result : all)
    if (result.rank == 0)
      kept.push_back(std::move(result));
  int agreed = 0;
  for (ItemResult &mine : kept) {
    if (!mine.decided)
      continue;
    std::string differences;
    for (const ItemResult &other : all)
      if (other.rank != 0 && other.item == mine.item &&
          (!other.decided || other.decision.report.chosenName !=
                                 mine.decision.report.chosenName))
        differences += " rank " + std::to_string(other.rank) + ": " +
                       (other.decided ? other.decision.report.chosenName
                                      : std::string("no decision"));
    if (differences.empty()) {
      ++agreed;
      continue;
    }
    mine.output += "  error: the ranks launch different variants (rank 0: " +
                   mine.decision.report.chosenName + ";" + differences + ")\n";
    mine.failed = true;
  }
  std::printf("agreed on %d ranks: every rank launches the same variant for "
              "each of %d decisions\n",
              size(), agreed);
  return kept;
}

} // namespace tuna::tune
