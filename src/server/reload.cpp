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

// The updater (server/dns_updates.hpp) is made with these at start.
bool same_ddns(const config::DdnsSection& a, const config::DdnsSection& b) {
  if (a.enabled != b.enabled) return false;
  if (!a.enabled) return true;
  const ddns::Settings& x = a.settings;
  const ddns::Settings& y = b.settings;
  const auto same_key = [](const std::optional<ddns::TsigKey>& k, const std::optional<ddns::TsigKey>& l) {
    return k.has_value() == l.has_value() &&
           (!k || (k->name == l->name && k->algorithm == l->algorithm && k->secret == l->secret));
  };
  return a.key_file == b.key_file && x.forward_zone == y.forward_zone && x.reverse_zones == y.reverse_zones &&
         x.server == y.server && same_key(x.key, y.key) && x.ttl.lease_fraction == y.ttl.lease_fraction &&
         x.ttl.fixed_s == y.ttl.fixed_s && x.ttl.min_s == y.ttl.min_s && x.ttl.max_s == y.ttl.max_s &&
         x.conflict_mode == y.conflict_mode && x.override_client_update == y.override_client_update &&
         x.override_no_update == y.override_no_update && x.always_tcp == y.always_tcp &&
         x.exchange_timeout == y.exchange_timeout && x.max_attempts == y.max_attempts;
}

}  // namespace

bool keep_restart_only(config::Config& next, const config::Config& running) {
  if (next.server.listen.address == running.server.listen.address &&
      next.server.listen.port == running.server.listen.port && next.server.interfaces == running.server.interfaces &&
      next.server.user == running.server.user && next.store.path == running.store.path &&
      next.store.url == running.store.url && next.store.type == running.store.type &&
      same_control(next.control, running.control) && next.events.exec == running.events.exec &&
      same_ddns(next.ddns, running.ddns)) {
    return false;
  }
  next.server = running.server;
  next.store = running.store;
  next.control = running.control;
  next.events = running.events;
  next.ddns = running.ddns;
  return true;
}

}  // namespace landlord::server
