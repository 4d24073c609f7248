# Native-module fixtures for the KE rules, built from tests/elf/fixtures/ with
# this machine's toolchain. Each output is named like a module; its
# PyInit_<name> comes from -DMODULE_INIT. Optional toolchains (hipcc, an
# aarch64 cross compiler, clang with lld for Mach-O) add fixtures when found;
# the tests skip what was not built.
set(elf_fixture_sources ${dir}/fixtures)
set(elf_fixture_dir ${CMAKE_BINARY_DIR}/elf_fixtures)
file(MAKE_DIRECTORY ${elf_fixture_dir})
set(elf_fixture_outputs)
set(elf_fixtures_not_built)  # optional fixtures whose toolchain is missing here
set(elf_hardened -fvisibility=hidden -Wl,-z,relro,-z,now)

# kcheck_elf_fixture(<output file> <source> <compiler> [flags...])
function(kcheck_elf_fixture output source compiler)
  string(REGEX REPLACE "\\..*$" "" module ${output})
  add_custom_command(
    OUTPUT ${elf_fixture_dir}/${output}
    COMMAND ${compiler} -shared -fPIC -O1 -DMODULE_INIT=PyInit_${module}
            -o ${elf_fixture_dir}/${output} ${elf_fixture_sources}/${source} ${ARGN}
    DEPENDS ${elf_fixture_sources}/${source}
    COMMENT "ELF fixture ${output}"
    VERBATIM)
  set(elf_fixture_outputs ${elf_fixture_outputs} ${elf_fixture_dir}/${output} PARENT_SCOPE)
endfunction()

set(cc ${CMAKE_C_COMPILER})
set(cxx ${CMAKE_CXX_COMPILER})
kcheck_elf_fixture(_clean.abi3.so clean.c ${cc} ${elf_hardened})
kcheck_elf_fixture(_clean_lazy.abi3.so clean.c ${cc} -fvisibility=hidden)
kcheck_elf_fixture(_glibc_229.abi3.so glibc_229.c ${cc} ${elf_hardened} -lm)
kcheck_elf_fixture(_glibcxx_325.abi3.so glibcxx_325.cpp ${cxx} ${elf_hardened})
kcheck_elf_fixture(_cxx_runtime.abi3.so cxx_runtime.cpp ${cxx} ${elf_hardened})
kcheck_elf_fixture(_python_imports.abi3.so python_imports.c ${cc} ${elf_hardened})
kcheck_elf_fixture(_plain.so clean.c ${cc} ${elf_hardened})
kcheck_elf_fixture(_renamed.abi3.so clean.c ${cc} ${elf_hardened} -UMODULE_INIT -DMODULE_INIT=PyInit__other)
kcheck_elf_fixture(_default_visibility.abi3.so default_visibility.c ${cc} -Wl,-z,relro,-z,now)
kcheck_elf_fixture(_absolute_rpath.abi3.so clean.c ${cc} ${elf_hardened} -Wl,-rpath,/opt/kernels/lib)
kcheck_elf_fixture(_origin_rpath.abi3.so clean.c ${cc} ${elf_hardened} -Wl,-rpath,$ORIGIN/lib)
kcheck_elf_fixture(_escaping_rpath.abi3.so clean.c ${cc} ${elf_hardened} -Wl,-rpath,$ORIGIN/../../lib)
kcheck_elf_fixture(_execstack.abi3.so clean.c ${cc} ${elf_hardened} -Wl,-z,execstack)
kcheck_elf_fixture(_text_relocation.abi3.so text_relocation.c ${cc} ${elf_hardened} -w)
# A program named like a module: judged as a program (a note), not as one.
add_custom_command(
  OUTPUT ${elf_fixture_dir}/_program.abi3.so
  COMMAND ${cc} -fPIE -pie -rdynamic -O1 -Wl,-z,relro,-z,now -o ${elf_fixture_dir}/_program.abi3.so
          ${elf_fixture_sources}/program.c
  DEPENDS ${elf_fixture_sources}/program.c
  COMMENT "ELF fixture _program.abi3.so"
  VERBATIM)
list(APPEND elf_fixture_outputs ${elf_fixture_dir}/_program.abi3.so)
kcheck_elf_fixture(_debug_leak.abi3.so clean.c ${cc} ${elf_hardened} -g -fdebug-prefix-map=${elf_fixture_sources}=/home/builder/kernel)
kcheck_elf_fixture(_needs_libelf.abi3.so clean.c ${cc} ${elf_hardened} -Wl,--no-as-needed -lelf)
kcheck_elf_fixture(_torch_registrations.abi3.so torch_registrations.cpp ${cxx} ${elf_hardened})
kcheck_elf_fixture(_packed_relocations.abi3.so relative_relocations.c ${cc} ${elf_hardened} -Wl,-z,pack-relative-relocs)
kcheck_elf_fixture(_unpacked_relocations.abi3.so relative_relocations.c ${cc} ${elf_hardened})
kcheck_elf_fixture(_source_path_leak.abi3.so file_macro.c ${cc} ${elf_hardened} -fmacro-prefix-map=${elf_fixture_sources}=/tmp/build)
kcheck_elf_fixture(_source_path_mapped.abi3.so file_macro.c ${cc} ${elf_hardened} -fmacro-prefix-map=${elf_fixture_sources}=.)
kcheck_elf_fixture(_source_paths_far_apart.abi3.so source_paths_far_apart.c ${cc} ${elf_hardened} -fno-toplevel-reorder)
kcheck_elf_fixture(_device_line_table.abi3.so device_line_table.c ${cc} ${elf_hardened})
kcheck_elf_fixture(_fatbin_across_pieces.abi3.so fatbin_across_pieces.c ${cc} ${elf_hardened})
kcheck_elf_fixture(_fatbin_compressed_entries.abi3.so fatbin_compressed_entries.c ${cc} ${elf_hardened})
kcheck_elf_fixture(_hip_compressed_bundle.abi3.so hip_compressed_bundle.c ${cc} ${elf_hardened})

# Fixtures that need a toolchain this machine may lack: each test using one
# skips, naming the missing toolchain (tests/elf/elf_test_support.h,
# KCHECK_REQUIRE_FIXTURE), when it was not found here; scripts/setup.sh installs them all.
set(KCHECK_FOREIGN_FIXTURE_MISSING "aarch64-linux-gnu-gcc not found when the build was configured")
set(KCHECK_CUDA_FIXTURE_MISSING "nvcc not found when the build was configured")
set(KCHECK_HIP_FIXTURE_MISSING "hipcc not found when the build was configured")
set(KCHECK_MACHO_FIXTURE_MISSING "clang or ld64.lld not found when the build was configured")
find_program(KCHECK_AARCH64_CC aarch64-linux-gnu-gcc)
if(KCHECK_AARCH64_CC)
  # -nostdlib: Debian's cross compiler comes without the aarch64 libc (memcpy stays undefined).
  kcheck_elf_fixture(_foreign.abi3.so clean.c ${KCHECK_AARCH64_CC} ${elf_hardened} -nostdlib)
  set(KCHECK_FOREIGN_FIXTURE_MISSING "")
else()
  list(APPEND elf_fixtures_not_built _foreign.abi3.so)
endif()

find_program(KCHECK_NVCC nvcc HINTS /usr/local/cuda/bin)
if(KCHECK_NVCC)
  add_custom_command(
    OUTPUT ${elf_fixture_dir}/_cuda_kernel.abi3.so
    COMMAND ${KCHECK_NVCC} -shared -Xcompiler -fPIC,-fvisibility=hidden -Xlinker -z,relro,-z,now -cudart shared
            -DMODULE_INIT=PyInit__cuda_kernel
            -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a
            -gencode arch=compute_90,code=compute_90
            -o ${elf_fixture_dir}/_cuda_kernel.abi3.so ${elf_fixture_sources}/cuda_kernel.cu
    DEPENDS ${elf_fixture_sources}/cuda_kernel.cu
    COMMENT "ELF fixture _cuda_kernel.abi3.so (nvcc)"
    VERBATIM)
  list(APPEND elf_fixture_outputs ${elf_fixture_dir}/_cuda_kernel.abi3.so)
  # Line tables naming a builder's path in device code nvcc compressed:
  # every entry in zstd (--compress-mode=size), or the PTX alone in LZ4
  # (--compress-mode=speed), the entry that holds the path then; and -rdc,
  # whose relocatable code in __nv_relfatbin nvcc compresses by default.
  foreach(compression zstd lz4 rdc)
    if(compression STREQUAL "zstd")
      set(cuda_code -gencode arch=compute_90,code=[sm_90,compute_90] --compress-mode=size)
    elseif(compression STREQUAL "lz4")
      set(cuda_code -gencode arch=compute_90,code=compute_90 --compress-mode=speed)
    else()
      set(cuda_code -gencode arch=compute_90,code=[sm_90,compute_90] -rdc=true)
    endif()
    set(output _cuda_kernel_${compression}_lineinfo.abi3.so)
    # The source named relative to its folder: nvcc writes the path it is given
    # into each fatbin entry's identifier, and the checkout's path (under /tmp
    # or /home, say) would be a second build path for KE012 to report.
    add_custom_command(
      OUTPUT ${elf_fixture_dir}/${output}
      COMMAND ${KCHECK_NVCC} -shared -Xcompiler -fPIC,-fvisibility=hidden -Xlinker -z,relro,-z,now -cudart shared
              -DMODULE_INIT=PyInit__cuda_kernel_${compression}_lineinfo -lineinfo ${cuda_code}
              -o ${elf_fixture_dir}/${output} cuda_kernel_lineinfo.cu
      WORKING_DIRECTORY ${elf_fixture_sources}
      DEPENDS ${elf_fixture_sources}/cuda_kernel_lineinfo.cu
      COMMENT "ELF fixture ${output} (nvcc)"
      VERBATIM)
    list(APPEND elf_fixture_outputs ${elf_fixture_dir}/${output})
  endforeach()
  set(KCHECK_CUDA_FIXTURE_MISSING "")
else()
  list(APPEND elf_fixtures_not_built _cuda_kernel.abi3.so _cuda_kernel_zstd_lineinfo.abi3.so _cuda_kernel_lz4_lineinfo.abi3.so
       _cuda_kernel_rdc_lineinfo.abi3.so)
endif()

find_program(KCHECK_HIPCC hipcc)
if(KCHECK_HIPCC)
  add_custom_command(
    OUTPUT ${elf_fixture_dir}/_hip_kernel.abi3.so
    COMMAND ${KCHECK_HIPCC} -shared -fPIC -fvisibility=hidden -Wl,-z,relro,-z,now -DMODULE_INIT=PyInit__hip_kernel
            --offload-arch=gfx90a --offload-arch=gfx1030
            -o ${elf_fixture_dir}/_hip_kernel.abi3.so ${elf_fixture_sources}/hip_kernel.hip
    DEPENDS ${elf_fixture_sources}/hip_kernel.hip
    COMMENT "ELF fixture _hip_kernel.abi3.so (hipcc)"
    VERBATIM)
  list(APPEND elf_fixture_outputs ${elf_fixture_dir}/_hip_kernel.abi3.so)
  set(KCHECK_HIP_FIXTURE_MISSING "")
else()
  list(APPEND elf_fixtures_not_built _hip_kernel.abi3.so)
endif()

# Mach-O through clang's Darwin target and lld; no Apple SDK needed with -nostdlib.
find_program(KCHECK_CLANG clang)
find_program(KCHECK_LD64_LLD NAMES ld64.lld ld64.lld-15 ld64.lld-14)
if(KCHECK_CLANG AND KCHECK_LD64_LLD)
  foreach(macos 15.0 26.0)
    string(REPLACE "." "_" tag ${macos})
    kcheck_elf_fixture(_macho_${tag}.abi3.so macho_module.c ${KCHECK_CLANG} -target arm64-apple-macos${macos}
                       -fuse-ld=lld -nostdlib -Wl,-undefined,dynamic_lookup)
  endforeach()
  set(KCHECK_MACHO_FIXTURE_MISSING "")
endif()

foreach(missing IN ITEMS KCHECK_FOREIGN_FIXTURE_MISSING KCHECK_CUDA_FIXTURE_MISSING KCHECK_HIP_FIXTURE_MISSING
                        KCHECK_MACHO_FIXTURE_MISSING)
  if(NOT "${${missing}}" STREQUAL "")
    kcheck_suite_gap("${${missing}}: the ELF tests on its fixture skip")
  endif()
endforeach()
set(KCHECK_CUOBJDUMP ${CMAKE_SOURCE_DIR}/.venv/lib/python3.11/site-packages/nvidia/cu13/bin/cuobjdump)
if(NOT EXISTS ${KCHECK_CUOBJDUMP})
  kcheck_suite_gap("cuobjdump in .venv (nvidia-cuda-cuobjdump, scripts/setup.sh): ElfDifferential.FatBinaryArchsEqualCuobjdump skips")
endif()

add_custom_target(kcheck_elf_fixtures DEPENDS ${elf_fixture_outputs})
# Every ELF fixture declared above (the Mach-O ones are not ELF), built or
# not, for tests that go over them all (those not built skip with the reason):
# comma-separated, as a define cannot hold ';'.
set(elf_fixture_names ${elf_fixtures_not_built})
foreach(output IN LISTS elf_fixture_outputs)
  get_filename_component(name ${output} NAME)
  list(APPEND elf_fixture_names ${name})
endforeach()
list(FILTER elf_fixture_names EXCLUDE REGEX "^_macho")
list(SORT elf_fixture_names)
list(JOIN elf_fixture_names "," elf_fixture_names)
add_dependencies(${target} kcheck_elf_fixtures)
target_compile_definitions(${target} PRIVATE KCHECK_ELF_FIXTURES_DIR="${elf_fixture_dir}"
  KCHECK_ELF_FIXTURE_NAMES="${elf_fixture_names}"
  KCHECK_FOREIGN_FIXTURE_MISSING="${KCHECK_FOREIGN_FIXTURE_MISSING}" KCHECK_CUDA_FIXTURE_MISSING="${KCHECK_CUDA_FIXTURE_MISSING}"
  KCHECK_HIP_FIXTURE_MISSING="${KCHECK_HIP_FIXTURE_MISSING}" KCHECK_MACHO_FIXTURE_MISSING="${KCHECK_MACHO_FIXTURE_MISSING}"
  KCHECK_CUOBJDUMP="${KCHECK_CUOBJDUMP}")
