# `make deb`: a Debian package of what `cmake --install` installs (the apidex binary, the
# library, its header and .pc file, the man page, the shell completions), built by CPack.
# Depends comes from dpkg-shlibdeps: the runtime libraries the built files link.
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "apidex")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
# The Maintainer field: whoever builds the package (packaging/maintainer.cmake):
# -DAPIDEX_DEB_MAINTAINER="Name <address>", else DEBEMAIL/DEBFULLNAME or EMAIL, else
# "apidex local build <user@host>".
set(APIDEX_DEB_MAINTAINER "" CACHE STRING
  "Maintainer field of the .deb (make deb), \"Name <address>\"; empty: DEBEMAIL, EMAIL or user@host")
# builds configured before 0.2.0 cached a made-up default: forget it
if(APIDEX_DEB_MAINTAINER STREQUAL
   "Seed 57cf7b3c maintainers <maintainers@users.noreply.a-seed-57cf7b3c.example>")
  set_property(CACHE APIDEX_DEB_MAINTAINER PROPERTY VALUE "")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/maintainer.cmake)
apidex_deb_maintainer(apidex_maintainer)
set(CPACK_PACKAGE_CONTACT "${apidex_maintainer}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "finds the API endpoints a task needs in OpenAPI documents, and calls them safely")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "apidex indexes OpenAPI (Swagger 2.0, OpenAPI 3.x) documents and Postman collections\n\
into one SQLite file and answers a task in natural language with the endpoints that\n\
solve it, by relevance, with the plan that calls them; it serves them over HTTP and MCP and can call them under safety\n\
rules. This package holds the apidex command, libapidex and its header.")
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
include(CPack)
