# What building kcheck needs, checked before anything is built: every missing
# package is named at once with the Debian/Ubuntu package that provides it and
# the command that installs them all (`pip install .` otherwise stops at the
# first CMake find_* error, naming a CMake variable, not a package).
#
#   kcheck_need(<found> <what> <debian package>)  one requirement
#   kcheck_stop_if_missing()                     the error, if any is missing
set(KCHECK_MISSING_PACKAGES "")
set(KCHECK_MISSING_WHAT "")

function(kcheck_need found what debian_package)
  if(NOT ${found})
    set(KCHECK_MISSING_PACKAGES ${KCHECK_MISSING_PACKAGES} ${debian_package} PARENT_SCOPE)
    set(KCHECK_MISSING_WHAT ${KCHECK_MISSING_WHAT} "${what} (${debian_package})" PARENT_SCOPE)
  endif()
endfunction()

function(kcheck_stop_if_missing)
  if(KCHECK_MISSING_PACKAGES)
    list(REMOVE_DUPLICATES KCHECK_MISSING_PACKAGES)
    list(JOIN KCHECK_MISSING_WHAT ", " what)
    list(JOIN KCHECK_MISSING_PACKAGES " " packages)
    message(FATAL_ERROR "kcheck cannot be built: missing ${what}.\n"
            "Install them with `scripts/setup.sh --wheel-deps` (Debian 12, Ubuntu 24.04), or:\n"
            "  sudo apt-get install ${packages}\n"
            "then run `pip install .` again.")
  endif()
endfunction()
