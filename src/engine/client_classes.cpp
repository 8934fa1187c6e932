#include "client_classes.hpp"

#include <string_view>

#include "classes.hpp"
#include "lease_classes.hpp"

namespace landlord::engine {

std::uint64_t ClientClasses::of(const wire::Message& message) const {
  return config_.classes.empty() ? 0 : class_membership(config_.classes, message);
}

std::uint64_t ClientClasses::of(const wire::Message& message, Ipv4 address, const ClientKey& client) const {
  if (config_.classes.empty()) return 0;
  const auto record = ledger_.table().facts(address, client);
  const bool own = record != std::nullopt && record->of_client && record->state == lease::LeaseState::Bound;
  return own ? of_held(message, address) : of(message);
}

std::uint64_t ClientClasses::of_held(const wire::Message& message, Ipv4 address) const {
  if (config_.classes.empty()) return 0;
  const auto held = ledger_.table().find(address);
  return extension_classes(config_.classes, message, held ? std::string_view(held->classes) : "");
}

const config::LeaseTimes* ClientClasses::lease_times(std::uint64_t member_of) const {
  for (std::size_t index = 0; index < config_.classes.size(); ++index) {
    if ((member_of >> index & 1) != 0 && config_.classes[index].lease) return &*config_.classes[index].lease;
  }
  return nullptr;
}

}  // namespace landlord::engine
