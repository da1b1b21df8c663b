# cmake -DTUNA_BINARY_DIR=... -DTUNA_EXAMPLES_DIR=... -DWORK_DIR=...
#       -DGENERATOR=... -DCXX_COMPILER=... -P InstallExamples.cmake
include(${CMAKE_CURRENT_LIST_DIR}/Install.cmake)

foreach(example aot jit)
  set(build ${WORK_DIR}/${example})
  run(${CMAKE_COMMAND} -G ${GENERATOR} -S ${TUNA_EXAMPLES_DIR}/${example}
      -B ${build} -DCMAKE_PREFIX_PATH=${prefix}
      -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release)
  run(${CMAKE_COMMAND} --build ${build})
  # Tuning results go to the work folder, not to ~/.cache/tuna.
  run(${CMAKE_COMMAND} -E env TUNA_CACHE_DIR=${WORK_DIR}/cache
      ${build}/${example}_app)
endforeach()
