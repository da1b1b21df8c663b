# tuna-gpu-scale-bundle: the scale kernel of scale_variants.cu, compiled to PTX
# by nvcc at build time, and a function that wraps it in an in-memory bundle
# (ScaleBundle.h). Used by the GPU tests and by tuna-gpu-bench; included from
# both, defined once. Without nvcc the library still builds and says, when
# asked for the PTX, that there is none.
include_guard(GLOBAL)

find_program(TUNA_NVCC nvcc HINTS ENV CUDA_PATH ENV CUDA_HOME
  PATHS /usr/local/cuda PATH_SUFFIXES bin
  DOC "nvcc, for the GPU tests' and benchmarks' PTX")
set(TUNA_SCALE_PTX_ARCH 75 CACHE STRING
  "Virtual architecture (compute_XY) of the nvcc-made scale PTX")

set(_tuna_scale_dir ${PROJECT_SOURCE_DIR}/test/gpu)
add_library(tuna-gpu-scale-bundle STATIC ${_tuna_scale_dir}/ScaleBundle.cpp)
target_include_directories(tuna-gpu-scale-bundle PUBLIC ${_tuna_scale_dir})
target_link_libraries(tuna-gpu-scale-bundle PUBLIC tuna_runtime)
target_compile_options(tuna-gpu-scale-bundle PRIVATE -Wall -Wextra)

if(TUNA_NVCC)
  set(_tuna_scale_ptx ${CMAKE_CURRENT_BINARY_DIR}/scale_variants.ptx)
  add_custom_command(OUTPUT ${_tuna_scale_ptx}
    COMMAND ${TUNA_NVCC} -ptx -arch=compute_${TUNA_SCALE_PTX_ARCH}
            ${_tuna_scale_dir}/scale_variants.cu -o ${_tuna_scale_ptx}
    DEPENDS ${_tuna_scale_dir}/scale_variants.cu
    COMMENT "Compiling scale_variants.cu to PTX with nvcc")
  add_custom_target(tuna-gpu-scale-ptx ALL DEPENDS ${_tuna_scale_ptx})
  add_dependencies(tuna-gpu-scale-bundle tuna-gpu-scale-ptx)
  target_compile_definitions(tuna-gpu-scale-bundle PRIVATE
    TUNA_SCALE_PTX="${_tuna_scale_ptx}")
else()
  message(STATUS "nvcc not found: the GPU tests and benchmarks that need the "
                 "nvcc-made scale PTX will skip")
endif()
