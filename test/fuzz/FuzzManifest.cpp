//===- FuzzManifest.cpp - libFuzzer target: the JSON manifest of bundles --===//
//
// The input is a manifest (the JSON inside a bundle file, without the hashes
// that guard it there). A manifest that reads and validates must print back
// to JSON that reads to the same manifest, and must set up a module on the
// host (every expression compiled, code selected) without loading code.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "ManifestJson.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view json(reinterpret_cast<const char *>(data), size);
  tuna::Bundle bundle;
  std::vector<tuna::BlobPlacement> blobs;
  try {
    tuna::manifestFromJson(json, "fuzz", bundle, blobs);
    tuna::validateBundle(bundle, "fuzz");
  } catch (const tuna::Error &) {
    return 0;
  }

  std::string printed = tuna::manifestToJson(bundle, blobs);
  tuna::Bundle reread;
  std::vector<tuna::BlobPlacement> rereadBlobs;
  tuna::manifestFromJson(printed, "printed", reread, rereadBlobs);
  if (tuna::manifestToJson(reread, rereadBlobs) != printed)
    tuna::fuzz::finding("fuzz-manifest", "a manifest changed when printed");
  tuna::fuzz::setUpOnHost(std::move(bundle));
  return 0;
}
