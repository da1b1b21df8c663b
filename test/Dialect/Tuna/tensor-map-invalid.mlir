// RUN: tuna-opt %s -split-input-file -verify-diagnostics

// The checks of a space's `tensor_maps` (#tuna.tensor_map) against TMA's
// rules and the kernel's arguments, and of the `tuna.tensor_map` op.

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{tensor map #0 describes argument 3 but the kernel has 2 argument(s)}}
    gpu.func @k(%a: memref<?x?xf32>, %n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 3, box = affine_map<()[b] -> (64, 8)>>]>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{tensor map #0 describes argument 1 of type 'index'; a tensor map describes a memref of f16, bf16, f32, f64, i8, i32 or i64}}
    gpu.func @k(%a: memref<?x?xf32>, %n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 1, box = affine_map<()[b] -> (64, 8)>>]>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{tensor map #0 describes argument 0 of type 'memref<?x?xi16>'; a tensor map describes a memref of f16, bf16, f32, f64, i8, i32 or i64}}
    gpu.func @k(%a: memref<?x?xi16>) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (64, 8)>>]>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{tensor map #0 has a box of 1 entries for argument 0 of rank 2; the box has one entry per dimension, innermost first}}
    gpu.func @k(%a: memref<?x?xf32>) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (64)>>]>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+2 {{tensor map of argument 0: its box has 6 entries; TMA describes 1 to 5 dimensions}}
    // expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'tensor_maps'}}
    gpu.func @k(%a: memref<?x?x?x?x?x?xf32>) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (4, 1, 1, 1, 1, 1)>>]>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{tensor map #0: box entry 1 is 0 (a TMA box is 1 to 256 elements per dimension)}}
    gpu.func @k(%a: memref<?x?xf32>) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (64, 0)>>]>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{tensor map #0: box entry 0 is 300 (a TMA box is 1 to 256 elements per dimension)}}
    gpu.func @k(%a: memref<?x?xi8>) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (300, 8)>>]>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{tensor map #0: its inner box is 12 bytes, not a multiple of 16}}
    gpu.func @k(%a: memref<?x?xf32>) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (3, 8)>>]>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{tensor map #0: its inner box is 256 bytes, over the 128-byte swizzle span}}
    gpu.func @k(%a: memref<?x?xf32>) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (64, 8)>, swizzle = 128>]>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+2 {{tensor map of argument 0: swizzle 16 is not one of 0, 32, 64, 128 (bytes)}}
    // expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'tensor_maps'}}
    gpu.func @k(%a: memref<?x?xf32>) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (8, 8)>, swizzle = 16>]>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+2 {{tensor map of argument 0: l2_promotion 32 is not one of 0, 64, 128, 256 (bytes)}}
    // expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'tensor_maps'}}
    gpu.func @k(%a: memref<?x?xf32>) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (8, 8)>, l2_promotion = 32>]>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{tensor map #0 fills out-of-bounds elements with NaN, but argument 0 has integer elements}}
    gpu.func @k(%a: memref<?x?xi32>) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (8, 8)>, oob_fill = nan>]>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{the box of tensor map #0 takes 0 dimension(s) and 2 symbol(s) but the key has 0 component(s) and the space declares 1 parameter(s); its inputs, dimensions then symbols, are the key values then the parameters}}
    gpu.func @k(%a: memref<?x?xf32>) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b, c] -> (8, 8)>>]>} {
      gpu.return
    }
  }
}

// -----

// A box that reads a key component needs it exact, as constraints do.
module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{the box of tensor map #0 reads key component 0 (argument 1), which must then use 'exact' bucketing, not 'pow2'}}
    gpu.func @k(%a: memref<?x?xf32>, %n: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, key = [#tuna.key<arg = 1, bucket = pow2>], grid = affine_map<(n)[b] -> (1)>, block = affine_map<(n)[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<(n)[b] -> (8, n)>>]>} {
      gpu.return
    }
  }
}

// -----

// expected-error @+1 {{'tensor_maps' needs a GPU kernel (TMA is an NVIDIA sm_90 unit)}}
func.func @host(%a: memref<?xf32>) attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (8)>>]>} {
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: memref<?xf32>) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (b)>>]>} {
      // expected-error @+1 {{'tuna.tensor_map' op reads tensor map 1 but the space declares 1 (its 'tensor_maps')}}
      %map = tuna.tensor_map 1 : !llvm.ptr
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: memref<?xf32>) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, grid = affine_map<()[b] -> (1)>, block = affine_map<()[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<()[b] -> (b)>>]>} {
      // expected-error @+1 {{'tuna.tensor_map' op yields '!llvm.ptr<3>'; a tensor map is read as an !llvm.ptr (the generic address of its 128 bytes)}}
      %map = tuna.tensor_map 0 : !llvm.ptr<3>
      gpu.return
    }
  }
}

// -----

func.func @no_space() {
  // expected-error @+1 {{'tuna.tensor_map' op must be inside a kernel that has a 'tuna.space'}}
  %map = tuna.tensor_map 0 : !llvm.ptr
  return
}

// -----

// A shape has one size per box entry.
module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+2 {{tensor map of argument 0: its shape has 1 sizes and its box 2 entries; the box has one entry per size}}
    // expected-error @+1 {{failed to parse Tuna_SpaceAttr parameter 'tensor_maps'}}
    gpu.func @k(%a: memref<?xf16>, %m: index, %k: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, key = [#tuna.key<arg = 1>, #tuna.key<arg = 2>], grid = affine_map<(m, k)[b] -> (1)>, block = affine_map<(m, k)[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<(m, k)[b] -> (64, 8)>, shape = affine_map<(m, k)[b] -> (m)>>]>} {
      gpu.return
    }
  }
}

// -----

// A shape views a rank-1 memref.
module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{tensor map #0 views argument 0 of rank 2 as a shape; a shape views a rank-1 memref}}
    gpu.func @k(%a: memref<?x?xf16>, %m: index, %k: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, key = [#tuna.key<arg = 1>, #tuna.key<arg = 2>], grid = affine_map<(m, k)[b] -> (1)>, block = affine_map<(m, k)[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<(m, k)[b] -> (64, 8)>, shape = affine_map<(m, k)[b] -> (m, k)>>]>} {
      gpu.return
    }
  }
}

// -----

// A shape is a function of the key values, not of a configuration.
module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{the shape of tensor map #0 reads a parameter; a shape is a function of the key values}}
    gpu.func @k(%a: memref<?xf16>, %m: index, %k: index) kernel attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [64]>], defaults = {b = 64}, key = [#tuna.key<arg = 1>, #tuna.key<arg = 2>], grid = affine_map<(m, k)[b] -> (1)>, block = affine_map<(m, k)[b] -> (128)>, tensor_maps = [#tuna.tensor_map<arg = 0, box = affine_map<(m, k)[b] -> (64, 8)>, shape = affine_map<(m, k)[b] -> (m, b)>>]>} {
      gpu.return
    }
  }
}
