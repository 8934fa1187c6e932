#include "landlord/base/version.hpp"

#include "landlord_git_revision.hpp"  // generated in the build tree

namespace landlord {

std::string_view version() { return LANDLORD_VERSION; }
std::string_view git_revision() { return LANDLORD_GIT_REVISION; }

std::string version_line(std::string_view tool) {
  std::string line{tool};
  line += ' ';
  line += version();
  line += " (";
  line += git_revision();
  line += ')';
  return line;
}

}  // namespace landlord
