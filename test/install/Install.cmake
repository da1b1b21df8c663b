# Shared by InstallExamples.cmake and RunTutorial.cmake: run(COMMAND...)
# stops the script with the command's output when it fails, and the build
# TUNA_BINARY_DIR is installed into ${WORK_DIR}/prefix.
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
