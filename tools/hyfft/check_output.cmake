# A CTest helper for output checks that must also see the exit status
# (PASS_REGULAR_EXPRESSION alone would ignore it):
#   cmake -DREGEX=RE [-DEXPECT=N] -P check_output.cmake -- COMMAND ARGS...
# Fails unless COMMAND exits with EXPECT (default 0) and its output matches
# RE: standard output for a success, standard output and error for a
# refusal (EXPECT not 0), where the message goes to stderr.
set(cmd)
set(after OFF)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after)
    list(APPEND cmd "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(after ON)
  endif()
endforeach()
if(NOT cmd)
  message(FATAL_ERROR "no command after --")
endif()
if(NOT DEFINED EXPECT)
  set(EXPECT 0)
endif()
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL EXPECT)
  message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT}")
endif()
set(checked "${out}")
if(NOT EXPECT EQUAL 0)
  set(checked "${out}${err}")
endif()
if(NOT checked MATCHES "${REGEX}")
  message(FATAL_ERROR "the output does not match ${REGEX}")
endif()
