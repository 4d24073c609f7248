# The malformed-binary tests mutate the ELF fixtures that tests/elf builds.
add_dependencies(${target} kcheck_elf_fixtures)
target_compile_definitions(${target} PRIVATE KCHECK_ELF_FIXTURES_DIR="${CMAKE_BINARY_DIR}/elf_fixtures")
