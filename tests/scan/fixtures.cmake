# The scan tests use the scan library (not linked by the other test executables).
target_link_libraries(${target} PRIVATE kcheck_scan)
