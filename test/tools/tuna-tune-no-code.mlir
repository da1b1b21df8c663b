// A bundle with GPU code only, tuned on the host (--device left out): one
// error for the kernel, naming the device and the code the bundle has, not
// one per variant or per shape.
// RUN: tuna-compile %S/../../kernels-mlir/scale.mlir --target=nvptx:sm_90 --no-ptxas -o %t.tuna > /dev/null 2>&1
// RUN: not tuna-tune %t.tuna --shape d0=4096,8192,16384 --no-cache > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// RUN: grep -c "code" %t.out | FileCheck %s --check-prefix=ONCE
// CHECK: tuna-tune: error: kernel 'scale' in '{{.*}}.tuna' has no code for this device (host {{.*}}); the bundle has code for: nvptx:sm_90 (ptx, 15 objects)
// ONCE: {{^1$}}
