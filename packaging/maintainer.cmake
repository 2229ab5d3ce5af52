# The Maintainer field of `make deb`'s package: the person who builds and publishes it, not
# a made-up address. apidex has no upstream packager, so the field names whoever runs the
# build, found the way Debian's own tools (dch, dh_make) find a packager:
#   1. -DAPIDEX_DEB_MAINTAINER="Name <address>" (a cache variable, kept between builds);
#   2. else the environment: DEBEMAIL ("Name <address>", or an address with DEBFULLNAME as
#      the name), else EMAIL;
#   3. else the account that builds, "apidex local build <user@host>": a package made on a
#      machine for itself, named as such.
# A value without a "<...@...>" address is refused (dpkg wants "Name <address>").
# Run as a script it prints the field: cmake [-DAPIDEX_DEB_MAINTAINER=...] -P maintainer.cmake
# (tests/e2e/test_deb_maintainer.sh).

function(apidex_deb_maintainer out)
  set(value "${APIDEX_DEB_MAINTAINER}")
  set(from "-DAPIDEX_DEB_MAINTAINER")
  if(value STREQUAL "")
    set(mail "$ENV{DEBEMAIL}")
    set(from "DEBEMAIL")
    if(mail STREQUAL "")
      set(mail "$ENV{EMAIL}")
      set(from "EMAIL")
    endif()
    if(mail MATCHES "<.*>")
      set(value "${mail}")
    elseif(NOT mail STREQUAL "")
      set(name "$ENV{DEBFULLNAME}")
      if(name STREQUAL "")
        set(name "$ENV{NAME}")
      endif()
      if(name STREQUAL "")
        set(name "apidex local build")
      endif()
      set(value "${name} <${mail}>")
    endif()
  endif()
  if(value STREQUAL "")
    set(user "$ENV{USER}")
    if(user STREQUAL "")
      set(user "$ENV{LOGNAME}")
    endif()
    if(user STREQUAL "")
      execute_process(COMMAND id -un OUTPUT_VARIABLE user OUTPUT_STRIP_TRAILING_WHITESPACE
                      ERROR_QUIET)
    endif()
    if(user STREQUAL "")
      set(user "builder")
    endif()
    cmake_host_system_information(RESULT host QUERY FQDN)
    if(host STREQUAL "")
      cmake_host_system_information(RESULT host QUERY HOSTNAME)
    endif()
    set(value "apidex local build <${user}@${host}>")
    set(from "the building account")
  endif()
  if(NOT value MATCHES "^[^<>]+ <[^<>@ ]+@[^<>@ ]+>$")
    message(FATAL_ERROR "apidex: the .deb's Maintainer (from ${from}) is '${value}': give "
      "\"Name <address>\", e.g. -DAPIDEX_DEB_MAINTAINER=\"Jane Doe <jane@example.org>\"")
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  apidex_deb_maintainer(apidex_maintainer)
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${apidex_maintainer}")
endif()
