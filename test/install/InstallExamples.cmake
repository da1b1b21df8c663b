# cmake -DTUNA_BINARY_DIR=... -DTUNA_EXAMPLES_DIR=... -DWORK_DIR=...
#       -DGENERATOR=... -DCXX_COMPILER=... -P InstallExamples.cmake
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status
                  OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "`${command}` failed (${status}):\n${output}")
  endif()
  message("${output}")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${TUNA_BINARY_DIR} --prefix ${prefix})

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
