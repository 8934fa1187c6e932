#include "lease_classes.hpp"

#include "classes.hpp"

namespace landlord::engine {

std::string class_names(std::span<const config::ClientClass> classes, std::uint64_t member_of) {
  std::string names;
  for (std::size_t index = 0; index < classes.size() && member_of != 0; ++index) {
    if ((member_of >> index & 1) == 0) continue;
    if (!names.empty()) names += ',';
    names += classes[index].name;
  }
  return names;
}

std::uint64_t classes_named(std::span<const config::ClientClass> classes, std::string_view names) {
  std::uint64_t named = 0;
  while (!names.empty()) {
    const std::size_t comma = names.find(',');
    const std::string_view name = names.substr(0, comma);
    for (std::size_t index = 0; index < classes.size(); ++index) {
      if (classes[index].name == name) named |= std::uint64_t{1} << index;
    }
    names = comma == std::string_view::npos ? std::string_view{} : names.substr(comma + 1);
  }
  return named;
}

std::uint64_t extension_classes(std::span<const config::ClientClass> classes, const wire::Message& message,
                                std::string_view stored_names) {
  const std::uint64_t matched = class_membership(classes, message);
  if (stored_names.empty()) return matched;
  const std::uint64_t stored = classes_named(classes, stored_names) & ~matched;
  return matched | uncontradicted(classes, message, stored);
}

}  // namespace landlord::engine
