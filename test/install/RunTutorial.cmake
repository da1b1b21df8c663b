# cmake -DTUNA_BINARY_DIR=... -DTUNA_SOURCE_DIR=... -DWORK_DIR=... -DPYTHON=...
#       -DGENERATOR=... -DCXX_COMPILER=... -P RunTutorial.cmake
# The tutorial's commands see the installed tools first on PATH, TUNA_PREFIX
# (the installed tree) and TUNA (the checkout), as its setup step says.
include(${CMAKE_CURRENT_LIST_DIR}/Install.cmake)

# Nothing of the caller's cache or databases: the tutorial sets its own.
run(${CMAKE_COMMAND} -E env --unset=TUNA_TUNING_DB --unset=TUNA_CACHE_DIR
    "PATH=${prefix}/bin:$ENV{PATH}" TUNA_PREFIX=${prefix}
    CMAKE_GENERATOR=${GENERATOR} CXX=${CXX_COMPILER}
    ${PYTHON} ${TUNA_SOURCE_DIR}/test/docs/run_markdown.py
    ${TUNA_SOURCE_DIR}/docs/tutorial.md --root ${TUNA_SOURCE_DIR}
    --work ${WORK_DIR}/run)
