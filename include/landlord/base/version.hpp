#pragma once
// What a binary says for `--version`: the project's version and the git revision it was built
// from (set at build time, cmake/git_revision.cmake).
#include <string>
#include <string_view>

namespace landlord {

std::string_view version();       // "0.1.0", the CMake project version
std::string_view git_revision();  // "git 647c2a0f1b2c", "git …-dirty", or "unknown (…)"
// "TOOL 0.1.0 (git 647c2a0f1b2c)": one line, no newline.
std::string version_line(std::string_view tool);

}  // namespace landlord
