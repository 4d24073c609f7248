# Included by tests/CMakeLists.txt with ${target} = kcheck_tests_harness_run.
# Deliberately bad variants for `kcheck run`: each fixtures/<case>.cpp is
# compiled against the venv's libtorch into
#   ${CMAKE_BINARY_DIR}/harness_fixtures/<case>/build/torch211-cxx11-cpu-x86_64-linux/_<case>_cpu_abc123.abi3.so
target_link_libraries(${target} PRIVATE kcheck_harness)
if(NOT TARGET kcheck_worker)
  message(STATUS "kcheck: no kcheck_worker; harness fixtures not built")
  kcheck_suite_gap("kcheck_worker (Torch in .venv, scripts/setup.sh, and not a sanitized build): the harness suite "
                   "skips, harness_reference_* left out, HostileRound2 skips")
  target_compile_definitions(${target} PRIVATE KCHECK_HARNESS_FIXTURES_DIR="")
  return()
endif()
set(KCHECK_HARNESS_FIXTURES_DIR ${CMAKE_BINARY_DIR}/harness_fixtures)
target_compile_definitions(${target} PRIVATE KCHECK_HARNESS_FIXTURES_DIR="${KCHECK_HARNESS_FIXTURES_DIR}")
file(GLOB harness_fixture_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/fixtures/*.cpp)
foreach(source IN LISTS harness_fixture_sources)
  get_filename_component(case ${source} NAME_WE)
  set(fixture kcheck_harness_fixture_${case})
  add_library(${fixture} MODULE ${source})
  target_include_directories(${fixture} SYSTEM PRIVATE ${KCHECK_TORCH_DIR}/include
                             ${KCHECK_TORCH_DIR}/include/torch/csrc/api/include)
  target_compile_definitions(${fixture} PRIVATE _GLIBCXX_USE_CXX11_ABI=1)
  target_link_directories(${fixture} PRIVATE ${KCHECK_TORCH_DIR}/lib)
  target_link_libraries(${fixture} PRIVATE torch_cpu c10)
  set_target_properties(${fixture} PROPERTIES
    PREFIX "" OUTPUT_NAME _${case}_cpu_abc123 SUFFIX ".abi3.so" SKIP_BUILD_RPATH ON
    LIBRARY_OUTPUT_DIRECTORY ${KCHECK_HARNESS_FIXTURES_DIR}/${case}/build/torch211-cxx11-cpu-x86_64-linux)
  # The variant's package: fixtures/<case>.init.py, or an empty default (KD006).
  set(init ${CMAKE_CURRENT_LIST_DIR}/fixtures/${case}.init.py)
  if(NOT EXISTS ${init})
    set(init ${CMAKE_CURRENT_LIST_DIR}/fixtures/default.init.py)
  endif()
  add_custom_command(TARGET ${fixture} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E copy ${init}
            ${KCHECK_HARNESS_FIXTURES_DIR}/${case}/build/torch211-cxx11-cpu-x86_64-linux/__init__.py)
  # The case's repository files beside build/ (issue #27's own references and
  # tests): fixtures/<case>.<name> becomes <case>/<name>, copied when CMake
  # configures (configure_file re-copies a file that changed).
  foreach(name kcheck-ops.toml reference.py build.toml tests broken_tests alike_tests passing_tests)
    set(repository_file ${CMAKE_CURRENT_LIST_DIR}/fixtures/${case}.${name})
    if(IS_DIRECTORY ${repository_file})
      file(GLOB_RECURSE repository_files RELATIVE ${repository_file} CONFIGURE_DEPENDS ${repository_file}/*)
      foreach(file IN LISTS repository_files)
        configure_file(${repository_file}/${file} ${KCHECK_HARNESS_FIXTURES_DIR}/${case}/${name}/${file} COPYONLY)
      endforeach()
    elseif(EXISTS ${repository_file})
      configure_file(${repository_file} ${KCHECK_HARNESS_FIXTURES_DIR}/${case}/${name} COPYONLY)
    endif()
  endforeach()
  add_dependencies(${target} ${fixture})
endforeach()

# kcheck_worker's RUNPATH has only absolute entries: an empty or relative one
# makes the loader look in the current directory, where a repository's
# library could be picked up (issue #28, item 1).
add_test(NAME harness_worker_runpath_is_absolute
         COMMAND sh -c "runpath=$(readelf -d '$<TARGET_FILE:kcheck_worker>' | sed -n 's/.*R[UN]*PATH.*\\[\\(.*\\)\\]/\\1/p') && \
                        test -n \"$runpath\" && echo \"$runpath\" | tr ':' '\\n' | { bad=0; while IFS= read -r entry; do \
                        case $entry in /*) ;; *) echo \"relative or empty RUNPATH entry: '$entry' in $runpath\"; bad=1 ;; esac; done; exit $bad; }")
set_tests_properties(harness_worker_runpath_is_absolute PROPERTIES LABELS harness)

# The evaluator of the repositories' reference expressions (issue #27):
# references evaluate, every escape tried is refused.
add_test(NAME harness_reference_expression_evaluator
         COMMAND ${KCHECK_VENV_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/reference_evaluator_test.py
                 ${CMAKE_SOURCE_DIR}/checker/harness/reference_runner.py)
set_tests_properties(harness_reference_expression_evaluator PROPERTIES LABELS harness)
add_test(NAME harness_time_beside
         COMMAND ${KCHECK_VENV_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/time_beside_test.py
                 ${CMAKE_SOURCE_DIR}/checker/harness/compile_baselines.py
                 ${CMAKE_SOURCE_DIR}/checker/harness/reference_runner.py)
set_tests_properties(harness_time_beside PROPERTIES LABELS harness)

# The reference kernels' CPU variants (built by reference_build_<kernel>_hub)
# load in the worker and every op passes its check against reference/ops in
# each dtype, with no finding at all (KD005 would mean "not run") and kcheck
# exiting 0; relu is
# also benchmarked, with and without a baseline (KB001, KB002).
set(reference_ops_relu relu)
set(reference_ops_activation "silu_and_mul,mul_and_silu,gelu_and_mul,gelu_tanh_and_mul,fatrelu_and_mul,gelu_new,gelu_fast,gelu_quick,gelu_tanh,silu,gelu")
set(reference_ops_rms_norm rms_norm)
foreach(kernel relu activation rms_norm)
  set(report ${CMAKE_BINARY_DIR}/harness-reference/${kernel}-run.json)
  add_test(NAME harness_reference_run_${kernel}
           COMMAND sh -c "mkdir -p '${CMAKE_BINARY_DIR}/harness-reference' && \
                          '$<TARGET_FILE:kcheck>' run '${CMAKE_BINARY_DIR}/reference/hub/${kernel}' --python '${KCHECK_VENV_PYTHON}' --format json -o '${report}' && \
                          '${Python3_EXECUTABLE}' '${CMAKE_CURRENT_LIST_DIR}/check_dynamic_report.py' run '${report}' '${reference_ops_${kernel}}'")
  set_tests_properties(harness_reference_run_${kernel} PROPERTIES
    FIXTURES_REQUIRED reference_${kernel}_hub LABELS "harness;reference")
endforeach()
add_test(NAME harness_reference_bench_relu
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_dynamic_report.py bench $<TARGET_FILE:kcheck>
                 ${CMAKE_BINARY_DIR}/reference/hub/relu ${CMAKE_BINARY_DIR}/harness-reference/bench ${KCHECK_VENV_PYTHON})
set_tests_properties(harness_reference_bench_relu PROPERTIES
  FIXTURES_REQUIRED reference_relu_hub LABELS "harness;reference")
