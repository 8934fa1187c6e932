#include "landlord/server/reload.hpp"

#include <optional>
#include <utility>

namespace landlord::server {
namespace {

bool same_control(const config::ControlSection& a, const config::ControlSection& b) {
  const auto endpoint = [](const config::ControlSection& section) {
    return section.listen ? std::optional{std::pair{section.listen->address, section.listen->port}}
                          : std::nullopt;
  };
  return a.enabled == b.enabled && a.socket == b.socket && a.token_file == b.token_file &&
         endpoint(a) == endpoint(b);
}

}  // namespace

bool keep_restart_only(config::Config& next, const config::Config& running) {
  if (next.server.listen.address == running.server.listen.address &&
      next.server.listen.port == running.server.listen.port && next.server.interfaces == running.server.interfaces &&
      next.server.user == running.server.user && next.store.path == running.store.path &&
      next.store.url == running.store.url && next.store.type == running.store.type &&
      same_control(next.control, running.control) && next.events.exec == running.events.exec) {
    return false;
  }
  next.server = running.server;
  next.store = running.store;
  next.control = running.control;
  next.events = running.events;
  return true;
}

}  // namespace landlord::server
