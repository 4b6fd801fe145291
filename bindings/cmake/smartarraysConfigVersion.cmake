# smartarraysConfigVersion.cmake - version check for find_package(smartarrays [VERSION]):
# compatible when the major version matches and the requested version is not newer.
set(PACKAGE_VERSION "0.1.0")
if(PACKAGE_FIND_VERSION_MAJOR STREQUAL "" OR
   (PACKAGE_FIND_VERSION_MAJOR EQUAL 0 AND NOT PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION))
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
else()
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
endif()
