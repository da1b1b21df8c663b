# cmake -DTUNA_BINARY_DIR=... -DTUNA_EXAMPLES_DIR=... -DWORK_DIR=...
#       -DGENERATOR=... -DCXX_COMPILER=... [-DMPIEXEC=...]
#       -P InstallExamples.cmake
# With MPIEXEC (the build has tuna_mpi), examples/mpi too, run on 2 ranks.
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

if(MPIEXEC)
  set(build ${WORK_DIR}/mpi)
  run(${CMAKE_COMMAND} -G ${GENERATOR} -S ${TUNA_EXAMPLES_DIR}/mpi
      -B ${build} -DCMAKE_PREFIX_PATH=${prefix}
      -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release)
  run(${CMAKE_COMMAND} --build ${build})
  # As root (CI containers) mpirun needs the two variables; 2 ranks may be
  # more than the cores.
  run(${CMAKE_COMMAND} -E env TUNA_CACHE_DIR=${WORK_DIR}/cache-mpi
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      ${MPIEXEC} --oversubscribe -np 2 ${build}/mpi_app)
endif()
