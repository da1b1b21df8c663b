//===- ScaleBundle.cpp - A scale kernel bundle made from nvcc PTX ---------===//

#include "ScaleBundle.h"

#include "tuna/runtime/Error.h"

#include <fstream>
#include <functional>
#include <sstream>

namespace tuna::gpu {

std::string readScalePtx() {
#ifdef TUNA_SCALE_PTX
  std::ifstream file(TUNA_SCALE_PTX, std::ios::binary);
  if (!file)
    throw Error(ErrorCode::NotFound,
                std::string("cannot read the nvcc-made PTX ") + TUNA_SCALE_PTX);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
#else
  throw Error(ErrorCode::NotFound,
              "nvcc was not found when this build was configured, so there "
              "is no PTX of test/gpu/scale_variants.cu");
#endif
}

std::string ptxTarget(const std::string &ptx) {
  const std::string directive = "\n.target ";
  size_t at = ptx.find(directive);
  if (at == std::string::npos)
    throw Error(ErrorCode::InvalidArgument, "PTX without a .target directive");
  at += directive.size();
  size_t end = ptx.find_first_of(" ,\n", at);
  return "nvptx:" + ptx.substr(at, end - at);
}

Kernel scaleKernel() {
  Kernel kernel;
  kernel.name = "scale";
  ArgSpec memref;
  memref.kind = ArgSpec::Kind::MemRef;
  memref.type = ScalarType::F32;
  memref.rank = 1;
  ArgSpec written = memref;
  written.written = true;
  ArgSpec scale;
  scale.type = ScalarType::F32;
  ArgSpec count;
  count.type = ScalarType::Index;
  kernel.args = {memref, written, scale, count};
  KeySpec key;
  key.arg = 3;
  key.bucket = Bucket::Pow2;
  kernel.key = {key};
  return kernel;
}

Bundle makeScaleBundle(const std::string &ptx) {
  Bundle bundle;
  bundle.tunaVersion = "nvcc-ptx";
  Object object;
  object.target = ptxTarget(ptx);
  object.format = "ptx";
  object.triple = "nvptx64-nvidia-cuda";
  object.data = ptx;
  bundle.objects.push_back(std::move(object));

  Kernel kernel = scaleKernel();
  std::ostringstream hash;
  hash << std::hex << std::hash<std::string>{}(ptx);
  kernel.sourceHash = hash.str();
  kernel.params = {"block", "ept"};

  using Op = ExprNode::Op;
  for (int64_t block : {64, 128, 256, 512, 1024})
    for (int64_t ept : {1, 2, 4}) {
      Variant variant;
      variant.name =
          "scale_b" + std::to_string(block) + "_e" + std::to_string(ept);
      variant.config = {{"block", block}, {"ept", ept}};
      // grid.x = n ceildiv (block * ept), block.x = block.
      variant.grid[0] = {
          {Op::Dim, 0}, {Op::Const, block * ept}, {Op::CeilDiv, 0}};
      variant.block[0] = {{Op::Const, block}};
      VariantCode code;
      code.object = 0;
      code.symbol = variant.name;
      variant.code.push_back(code);
      if (block == 256 && ept == 1)
        kernel.defaultVariant = static_cast<int>(kernel.variants.size());
      kernel.variants.push_back(std::move(variant));
    }
  bundle.kernels.push_back(std::move(kernel));
  return bundle;
}

} // namespace tuna::gpu
