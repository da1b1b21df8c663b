//===- ScaleBundle.h - A scale kernel bundle made from nvcc PTX -*- C++ -*-===//
//
// scale_variants.cu holds y = s * x in 15 variants (block 64..1024 x 1, 2 or
// 4 elements per thread) with the MLIR memref calling convention; the build
// compiles it to PTX with nvcc. makeScaleBundle() describes those kernels the
// way tuna-compile would: one kernel `scale(x: memref<?xf32>,
// y: memref<?xf32>, s: f32, n: index)` keyed on n (power-of-two buckets),
// with its launch geometry, so the whole runtime path runs without the MLIR
// compiler.
//
//===----------------------------------------------------------------------===//
#ifndef TUNA_TEST_GPU_SCALEBUNDLE_H
#define TUNA_TEST_GPU_SCALEBUNDLE_H

#include "tuna/runtime/Manifest.h"

#include <string>

namespace tuna::gpu {

/// The PTX nvcc made at build time. Throws tuna::Error (NotFound) saying why
/// there is none (no nvcc at configure time, or the file is gone).
std::string readScalePtx();

/// The `nvptx:sm_XY` target that `ptx` declares in its .target directive.
std::string ptxTarget(const std::string &ptx);

/// Kernel `scale(x: memref<?xf32>, y: memref<?xf32>, s: f32, n: index)`,
/// y written, keyed on n (power-of-two buckets): no source hash,
/// parameters or variants yet.
Kernel scaleKernel();

/// A bundle with the one kernel `scale` whose variants are the kernels of
/// `ptx` (made from scale_variants.cu). Its parameters are `block` and
/// `ept`; the default is block = 256, ept = 1.
Bundle makeScaleBundle(const std::string &ptx);

} // namespace tuna::gpu

#endif // TUNA_TEST_GPU_SCALEBUNDLE_H
