# Run the FFTW-linked and the hyfft-linked build of one program and compare
# their outputs (tests/fftw3/CMakeLists.txt).
execute_process(COMMAND ${REF} OUTPUT_FILE ${WORK}.fftw.txt RESULT_VARIABLE ref_rc)
execute_process(COMMAND ${TEST} OUTPUT_FILE ${WORK}.hyfft.txt RESULT_VARIABLE test_rc)
if(NOT ref_rc EQUAL 0 OR NOT test_rc EQUAL 0)
  message(FATAL_ERROR "exit status: FFTW build ${ref_rc}, hyfft build ${test_rc}")
endif()
execute_process(COMMAND ${COMPARE} ${WORK}.fftw.txt ${WORK}.hyfft.txt RESULT_VARIABLE cmp_rc)
if(NOT cmp_rc EQUAL 0)
  message(FATAL_ERROR "the outputs differ (${WORK}.fftw.txt, ${WORK}.hyfft.txt)")
endif()
