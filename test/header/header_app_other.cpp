//===- header_app_other.cpp - A second unit that includes kernels.h -------===//
//
// The header's functions and bundle are inline: every translation unit that
// includes it shares one module per device.
//
//===----------------------------------------------------------------------===//

#include "kernels.h"

tuna::Module &hostModuleFromOtherUnit() {
  return kernels::module(tuna::Device::host());
}
