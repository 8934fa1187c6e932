# `cmake --install` layout and the CPack .deb (issue #11).
#   landlord -> sbin; landlord-sim, landlordctl -> bin; example config -> /etc/landlord;
#   systemd unit; man pages; bash completions.
# The config lives in /etc/landlord whatever the prefix (an admin looks there), unless
# CMAKE_INSTALL_SYSCONFDIR says otherwise.
if(NOT DEFINED CMAKE_INSTALL_SYSCONFDIR)
  set(CMAKE_INSTALL_SYSCONFDIR /etc CACHE PATH "read-only single-machine data (config)")
endif()
include(GNUInstallDirs)

if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(default_unit_dir /lib/systemd/system)  # Debian 12's systemdsystemunitdir
else()
  set(default_unit_dir ${CMAKE_INSTALL_PREFIX}/lib/systemd/system)
endif()
# Empty: follow the prefix (also when the prefix changes in an existing build directory).
set(LANDLORD_SYSTEMD_UNIT_DIR "" CACHE PATH "where landlord.service is installed (default: from the prefix)")
set(unit_dir ${default_unit_dir})
if(LANDLORD_SYSTEMD_UNIT_DIR)
  set(unit_dir ${LANDLORD_SYSTEMD_UNIT_DIR})
endif()

set(LANDLORD_SBINDIR ${CMAKE_INSTALL_FULL_SBINDIR})
set(LANDLORD_CONFIG ${CMAKE_INSTALL_FULL_SYSCONFDIR}/landlord/landlord.yaml)
configure_file(${PROJECT_SOURCE_DIR}/packaging/landlord.service.in
               ${PROJECT_BINARY_DIR}/packaging/landlord.service @ONLY)

if(TARGET landlord)
  install(TARGETS landlord RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR})
endif()
foreach(tool landlord-sim landlordctl)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/packaging/landlord.yaml
        DESTINATION ${CMAKE_INSTALL_FULL_SYSCONFDIR}/landlord)
install(FILES ${PROJECT_BINARY_DIR}/packaging/landlord.service DESTINATION ${unit_dir})
# Man pages are installed gzip-compressed, as Debian policy (12.1) asks: `gzip -9n`, so the
# same page always gives the same bytes (no name, no time stamp in the header).
find_program(LANDLORD_GZIP gzip REQUIRED)
set(compressed_man_pages)
foreach(page landlord.8 landlord.yaml.5 landlord-sim.1 landlordctl.1)
  set(compressed ${PROJECT_BINARY_DIR}/man/${page}.gz)
  add_custom_command(OUTPUT ${compressed}
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
                     COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_SOURCE_DIR}/man/${page} ${PROJECT_BINARY_DIR}/man/${page}
                     COMMAND ${LANDLORD_GZIP} -9nf ${PROJECT_BINARY_DIR}/man/${page}
                     DEPENDS ${PROJECT_SOURCE_DIR}/man/${page} VERBATIM)
  list(APPEND compressed_man_pages ${compressed})
  string(REGEX MATCH "[0-9]$" section ${page})
  install(FILES ${compressed} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()
add_custom_target(landlord_man_pages ALL DEPENDS ${compressed_man_pages})
install(FILES ${PROJECT_SOURCE_DIR}/completions/landlord ${PROJECT_SOURCE_DIR}/completions/landlord-sim
              ${PROJECT_SOURCE_DIR}/completions/landlordctl
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

# The .deb: `cpack -G DEB` in a build configured with -DCMAKE_INSTALL_PREFIX=/usr.
set(CPACK_PACKAGE_NAME landlord)
set(CPACK_PACKAGE_VENDOR "landlord")
set(CPACK_PACKAGE_CONTACT "landlord maintainers <landlord@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "DHCPv4 lease server that acknowledges a lease only once it is on disk")
# The extended description (lintian: extended-description-is-empty).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "landlord serves DHCPv4 (RFC 2131/2132) on Ethernet links and to relays.
A lease is acknowledged only once it is committed to the store (SQLite,
or PostgreSQL shared by several servers), so a crash never hands one
address to two clients. It runs as a systemd notify service with a
watchdog, imports the lease files of Kea, ISC dhcpd and dnsmasq, and
ships landlord-sim, a DHCP client simulator, and landlordctl.")
# Binaries stripped (lintian: unstripped-binary-or-object); the build tree keeps the symbols.
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends: from the shared libraries the binaries actually link (dpkg-shlibdeps), plus what
# the maintainer scripts and the unit run (useradd: passwd; ExecReload=/bin/kill: procps, which a
# minimal Debian 12 root lacks: found by systemctl reload under systemd-nspawn).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "passwd, procps")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
file(WRITE ${PROJECT_BINARY_DIR}/packaging/conffiles "${LANDLORD_CONFIG}\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/packaging/postinst ${PROJECT_SOURCE_DIR}/packaging/prerm
    ${PROJECT_SOURCE_DIR}/packaging/postrm ${PROJECT_BINARY_DIR}/packaging/conffiles)
include(CPack)
