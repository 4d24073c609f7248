# The malformed-binary tests mutate the ELF fixtures that tests/elf builds.
add_dependencies(${target} kcheck_elf_fixtures)
target_compile_definitions(${target} PRIVATE KCHECK_ELF_FIXTURES_DIR="${CMAKE_BINARY_DIR}/elf_fixtures")

# `kcheck run` on the harness's hostile fixture kernels (issue #14 class 7),
# through the command line: built by tests/harness_run/fixtures.cmake when there
# is a kcheck_worker.
if(TARGET kcheck_worker)
  target_compile_definitions(${target} PRIVATE KCHECK_HARNESS_FIXTURES_DIR="${CMAKE_BINARY_DIR}/harness_fixtures")
  foreach(case fork_bomb_init setsid_daemon_init)
    add_dependencies(${target} kcheck_harness_fixture_${case})
  endforeach()
  add_dependencies(${target} kcheck_worker)
else()
  target_compile_definitions(${target} PRIVATE KCHECK_HARNESS_FIXTURES_DIR="")
endif()
