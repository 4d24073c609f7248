# Native modules with real TORCH_LIBRARY registrations, compiled against the
# venv's Torch headers (not linked: undefined symbols are fine in a shared
# object). Skipped, with the tests that need them, when Torch is not installed.
set(torch_include ${CMAKE_SOURCE_DIR}/.venv/lib/python3.11/site-packages/torch/include)
set(namespace_fixtures_dir ${CMAKE_BINARY_DIR}/namespace-fixtures)
if(EXISTS ${torch_include}/torch/library.h)
  set(namespace_fixture_outputs "")
  foreach(name registers_under_id registers_fixed_name)
    set(output ${namespace_fixtures_dir}/${name}.so)
    add_custom_command(
      OUTPUT ${output}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${namespace_fixtures_dir}
      COMMAND ${CMAKE_CXX_COMPILER} -std=c++17 -shared -fPIC -O1 -fvisibility=hidden -fvisibility-inlines-hidden
              -isystem ${torch_include} -isystem ${torch_include}/torch/csrc/api/include
              -o ${output} ${dir}/native/${name}.cpp
      DEPENDS ${dir}/native/${name}.cpp
      COMMENT "Compiling namespace fixture ${name}.so against Torch headers")
    list(APPEND namespace_fixture_outputs ${output})
  endforeach()
  add_custom_target(kcheck_namespace_fixtures DEPENDS ${namespace_fixture_outputs})
  add_dependencies(${target} kcheck_namespace_fixtures)
  target_compile_definitions(${target} PRIVATE KCHECK_NAMESPACE_FIXTURES_DIR="${namespace_fixtures_dir}")
else()
  message(STATUS "Torch headers not found under ${torch_include}: namespace tests on compiled TORCH_LIBRARY modules are skipped (run scripts/setup.sh)")
  kcheck_suite_gap("Torch headers in .venv (scripts/setup.sh): KO001.RealTorchLibraryModules skips")
  target_compile_definitions(${target} PRIVATE KCHECK_NAMESPACE_FIXTURES_DIR="")
endif()
