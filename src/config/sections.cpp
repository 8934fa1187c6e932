// The small sections: server, store, lease, control, log.
#include "sections.hpp"

#include <algorithm>
#include <cmath>

#include "landlord/config/keys.hpp"
#include "landlord/config/values.hpp"

namespace landlord::config::detail {
namespace {

constexpr std::uint16_t kControlPort = 8067;
constexpr std::size_t kMaxSocketPath = 108;  // sun_path, with its NUL
// Options 51/58/59 are 32-bit seconds and 0xffffffff means "infinite", which we do not offer.
constexpr std::int64_t kMaxLeaseSeconds = 0xfffffffe;
// An ACK waiting longer than this for its batch would reach clients that already retransmit.
constexpr Duration kMaxBatchWait = std::chrono::seconds{1};

bool whole_seconds(Duration duration) { return duration.count() % 1000 == 0; }

std::optional<Duration> read_positive_duration(Reader& reader, const Field& field) {
  const auto duration = reader.parsed(field, parse_duration);
  if (!duration) return std::nullopt;
  if (duration->count() <= 0) {
    reader.error(field.mark(), "'" + field.name + "' must be longer than 0s");
    return std::nullopt;
  }
  return duration;
}

// A T1/T2 given as a duration must be whole seconds like the lease time it is sent with.
std::optional<RenewalTime> read_renewal(Reader& reader, const Field& field) {
  const auto renewal = reader.parsed(field, parse_renewal_time);
  if (!renewal) return std::nullopt;
  if (const auto* fixed = std::get_if<Duration>(&*renewal)) {
    if (fixed->count() <= 0) {
      reader.error(field.mark(), "'" + field.name + "' must be longer than 0s");
      return std::nullopt;
    }
    if (!whole_seconds(*fixed)) {
      reader.error(field.mark(), "'" + field.name + "' must be whole seconds: clients receive it in seconds");
      return std::nullopt;
    }
  }
  return renewal;
}

std::string describe_timer(const RenewalTime& setting, Duration computed, Duration lease_time) {
  if (std::holds_alternative<Duration>(setting)) return format_duration(computed);
  return format_duration(computed) + " (" + format_renewal_time(setting) + " of " +
         format_duration(lease_time) + ")";
}

YAML::Mark first_set(const LeaseSection& lease, std::initializer_list<std::optional<YAML::Mark>> marks) {
  for (const auto& mark : marks) {
    if (mark) return *mark;
  }
  return lease.mark;
}

}  // namespace

// A lease time (`time`, `min`, `max`): sent in option 51, so whole seconds within 32 bits.
std::optional<Duration> read_lease_time(Reader& reader, const Field& field) {
  const auto time = reader.parsed(field, parse_duration);
  if (!time) return std::nullopt;
  const std::string name = "lease '" + field.name + "'";
  if (time->count() <= 0) {
    reader.error(field.mark(), name + " must be longer than 0s");
  } else if (!whole_seconds(*time)) {
    reader.error(field.mark(), name + " must be whole seconds: clients receive it in seconds");
  } else if (std::chrono::duration_cast<std::chrono::seconds>(*time).count() > kMaxLeaseSeconds) {
    reader.error(field.mark(), name + " must be at most 4294967294s (option 51 is 32 bits)");
  } else {
    return time;
  }
  return std::nullopt;
}

LeaseSection read_lease(Reader& reader, const Field* field, const YAML::Mark& fallback,
                        const LeaseTimes& base) {
  LeaseSection lease{base, fallback, {}, {}, {}, {}, {}};
  if (field == nullptr) return lease;
  const auto section = reader.section(*field, keys::kLease);
  lease.mark = section.mark;
  for (const auto& entry : section.fields) {
    if (entry.name == "time") {
      if (const auto time = read_lease_time(reader, entry)) {
        lease.times.time = *time;
        lease.time = entry.mark();
      }
    } else if (entry.name == "min" || entry.name == "max") {
      if (const auto bound = read_lease_time(reader, entry)) {
        (entry.name == "min" ? lease.times.min : lease.times.max) = *bound;
        (entry.name == "min" ? lease.min : lease.max) = entry.mark();
      }
    } else if (entry.name == "renew" || entry.name == "rebind") {
      const auto renewal = read_renewal(reader, entry);
      if (!renewal) continue;
      (entry.name == "renew" ? lease.times.renew : lease.times.rebind) = *renewal;
      (entry.name == "renew" ? lease.renew : lease.rebind) = entry.mark();
    } else {
      const auto hold = read_positive_duration(reader, entry);
      if (hold) (entry.name == "offer-hold" ? lease.times.offer_hold : lease.times.decline_hold) = *hold;
    }
  }
  return lease;
}

namespace {

// T1 >= 1s and T1 < T2 < lease time for one lease time a client may be granted. `which` names
// it when it is not `time` (" at lease 'min' 10s"); `first` is the key to point at first.
bool check_timers_at(Reader& reader, const LeaseSection& lease, Duration lease_time,
                     const std::string& which, std::optional<YAML::Mark> first,
                     std::string_view context) {
  const auto& times = lease.times;
  const Duration renew = times.renew_duration(lease_time);
  const Duration rebind = times.rebind_duration(lease_time);
  const std::string renew_text = describe_timer(times.renew, renew, lease_time);
  const std::string rebind_text = describe_timer(times.rebind, rebind, lease_time);
  const std::string suffix = which + std::string{context};
  bool valid = true;
  if (renew.count() <= 0) {
    reader.error(first_set(lease, {first, lease.renew, lease.time}),
                 "renew (T1) comes to " + renew_text + "; it must be at least 1s" + suffix);
    valid = false;
  } else if (renew >= rebind) {
    reader.error(first_set(lease, {first, lease.renew, lease.rebind, lease.time}),
                 "renew (T1) " + renew_text + " must be shorter than rebind (T2) " + rebind_text +
                     suffix);
    valid = false;
  }
  if (rebind >= lease_time) {
    reader.error(first_set(lease, {first, lease.rebind, lease.time, lease.renew}),
                 "rebind (T2) " + rebind_text + " must be shorter than the lease time " +
                     format_duration(lease_time) + suffix);
    valid = false;
  }
  return valid;
}

// With percentages for both T1 and T2, whole seconds of two growing fractions can meet at a
// longer lease time (50% and 60%: 2s/3s at 5s, 3s/3s at 6s). At least 1s between the exact
// values at `min` keeps T1 < T2 for every lease time from `min` up.
bool fractions_apart_at(const LeaseTimes& times, Duration shortest) {
  const auto* renew = std::get_if<Fraction>(&times.renew);
  const auto* rebind = std::get_if<Fraction>(&times.rebind);
  if (renew == nullptr || rebind == nullptr) return true;
  const auto gap_ppm = std::llround(rebind->value * 1'000'000.0) - std::llround(renew->value * 1'000'000.0);
  return gap_ppm * shortest.count() >= 1'000LL * 1'000'000LL;  // shortest in ms
}

}  // namespace

void check_lease(Reader& reader, const LeaseSection& lease, std::string_view context) {
  const auto& times = lease.times;
  if (!check_timers_at(reader, lease, times.time, "", std::nullopt, context)) return;
  bool range_valid = true;
  if (times.min && *times.min > times.time) {
    reader.error(first_set(lease, {lease.min, lease.time}),
                 "lease 'min' " + format_duration(*times.min) +
                     " must not be longer than the lease time " + format_duration(times.time) +
                     std::string{context});
    range_valid = false;
  }
  if (times.max && *times.max < times.time) {
    reader.error(first_set(lease, {lease.max, lease.time}),
                 "lease 'max' " + format_duration(*times.max) +
                     " must not be shorter than the lease time " + format_duration(times.time) +
                     std::string{context});
    range_valid = false;
  }
  if (!range_valid) return;
  // T1 and T2 only grow with the lease time: valid at both ends of min..max is valid between,
  // but for two percentages (fractions_apart_at).
  const Duration shortest = times.shortest();
  if (shortest < times.time) {
    const std::string which = " at lease 'min' " + format_duration(shortest);
    if (!check_timers_at(reader, lease, shortest, which, lease.min, context)) return;
    if (!fractions_apart_at(times, shortest)) {
      reader.error(first_set(lease, {lease.min, lease.renew, lease.rebind}),
                   "renew (T1) " + format_renewal_time(times.renew) + " and rebind (T2) " +
                       format_renewal_time(times.rebind) + " are less than 1s apart" + which +
                       "; T1 and T2 could meet for a longer lease" + std::string{context});
      return;
    }
  }
  const Duration longest = times.longest();
  if (longest > times.time) {
    check_timers_at(reader, lease, longest, " at lease 'max' " + format_duration(longest),
                    lease.max, context);
  }
}

bool is_interface_name(std::string_view name) {
  if (name.empty() || name.size() > 15) return false;
  return std::none_of(name.begin(), name.end(), [](char c) {
    return c == '/' || c == ':' || c == ' ' || c == '\t' || c == '\n';
  });
}

bool is_user_name(std::string_view name) {
  if (name.empty() || name.size() > 32 || name.front() == '-') return false;
  return std::none_of(name.begin(), name.end(), [](char c) {
    return c == '/' || c == ':' || c == ' ' || c == '\t' || c == '\n';
  });
}

ServerSection read_server(Reader& reader, const Field* field) {
  ServerSection server;
  server.listen = Endpoint{Ipv4{}, 67};
  if (field == nullptr) return server;
  const auto section = reader.section(*field, keys::kServer);
  for (const auto& entry : section.fields) {
    if (entry.name == "interfaces") {
      const auto items = reader.list(entry);
      if (!items) continue;
      for (const auto& item : *items) {
        const auto name = reader.scalar(item, "interfaces");
        if (!name) continue;
        if (!is_interface_name(*name)) {
          reader.error(item.Mark(), "'" + *name + "' is not an interface name (1-15 characters, no '/', ':' or spaces)");
        } else if (std::find(server.interfaces.begin(), server.interfaces.end(), *name) !=
                   server.interfaces.end()) {
          reader.error(item.Mark(), "interface '" + *name + "' is listed twice");
        } else {
          server.interfaces.push_back(*name);
        }
      }
    } else if (entry.name == "listen") {
      const auto endpoint = reader.parsed(entry, [](std::string_view text) { return parse_endpoint(text, 67); });
      if (endpoint) server.listen = *endpoint;
    } else if (entry.name == "server-id") {
      const auto address = reader.address(entry);
      if (!address) continue;
      if (address->is_zero() || address->is_broadcast()) {
        reader.error(entry.mark(), "'server-id' must be one of this server's addresses, not " + address->to_string());
      } else {
        server.server_id = *address;
      }
    } else if (entry.name == "authoritative") {
      if (const auto value = reader.boolean(entry)) server.authoritative = *value;
    } else if (entry.name == "classless-default-route") {
      if (const auto value = reader.boolean(entry)) server.classless_default_route = *value;
    } else if (entry.name == "discover-max-wait") {
      if (const auto wait = read_discover_max_wait(reader, entry)) server.discover_max_wait = *wait;
    } else if (entry.name == "user") {
      const auto name = reader.scalar(entry);
      if (name && !is_user_name(*name)) {
        reader.error(entry.mark(), "'user': '" + *name + "' is not a user name (1-32 characters, no ':', '/' or spaces)");
      } else if (name) {
        server.user = *name;
      }
    }
  }
  return server;
}

StoreSection read_store(Reader& reader, const Field* field) {
  StoreSection store;
  if (field == nullptr) return store;
  const auto section = reader.section(*field, keys::kStore);
  const Field* timeout_field = nullptr;
  for (const auto& entry : section.fields) {
    if (entry.name == "type") {
      const auto type = reader.scalar(entry);
      if (!type) continue;
      if (*type == "sqlite") {
        store.type = StoreSection::Type::Sqlite;
      } else if (*type == "memory") {
        store.type = StoreSection::Type::Memory;
      } else if (*type == "postgresql") {
        store.type = StoreSection::Type::Postgresql;
      } else {
        reader.error(entry.mark(),
                     "unknown store type '" + *type + "'; use sqlite, postgresql or memory");
      }
    } else if (entry.name == "url") {
      const auto url = reader.scalar(entry);
      if (url && url->empty()) {
        reader.error(entry.mark(), "'url' must not be empty");
      } else if (url) {
        store.url = *url;
      }
    } else if (entry.name == "sync-interval") {
      const auto interval = reader.parsed(entry, parse_duration);
      if (interval && (*interval < std::chrono::milliseconds{10} || *interval > std::chrono::seconds{10})) {
        reader.error(entry.mark(), "'sync-interval' must be between 10ms and 10s");
      } else if (interval) {
        store.sync_interval = *interval;
      }
    } else if (entry.name == "sync-notify") {
      if (const auto notify = reader.boolean(entry)) store.sync_notify = *notify;
    } else if (entry.name == "max-clock-skew") {
      const auto skew = reader.parsed(entry, parse_duration);
      if (skew && (*skew < std::chrono::milliseconds{10} || *skew > std::chrono::minutes{10})) {
        reader.error(entry.mark(), "'max-clock-skew' must be between 10ms and 10m");
      } else if (skew) {
        store.max_clock_skew = *skew;
      }
    } else if (entry.name == "timeout") {
      timeout_field = &entry;
      const auto timeout = reader.parsed(entry, parse_duration);
      if (timeout && (*timeout < StoreSection::kMinTimeout || *timeout > StoreSection::kMaxTimeout)) {
        reader.error(entry.mark(), "'timeout' must be between " + format_duration(StoreSection::kMinTimeout) +
                                       " and " + format_duration(StoreSection::kMaxTimeout));
      } else if (timeout) {
        store.timeout = *timeout;
      }
    } else if (entry.name == "path") {
      const auto path = reader.scalar(entry);
      if (path && path->empty()) {
        reader.error(entry.mark(), "'path' must not be empty");
      } else if (path) {
        store.path = *path;
      }
    } else if (entry.name == "batch-max") {
      if (const auto value = reader.unsigned_integer(entry, 1, 65536)) {
        store.batch_max = static_cast<std::uint32_t>(*value);
      }
    } else if (entry.name == "batch-wait" || entry.name == "batch-linger") {
      const auto wait = reader.parsed(entry, parse_duration);
      if (wait && *wait > kMaxBatchWait) {
        reader.error(entry.mark(), "'" + std::string(entry.name) +
                                       "' must be at most 1s: clients retransmit after a few seconds");
      } else if (wait) {
        (entry.name == "batch-wait" ? store.batch_wait : store.batch_linger) = *wait;
      }
    }
  }
  if (store.type == StoreSection::Type::Postgresql && store.url.empty()) {
    reader.error(field->mark(), "store type postgresql needs 'url' (a libpq connection URI)");
  }
  // A local SQLite file has no round trip to bound: its one wait, for another writer's lock, is
  // short and fixed (lease-store.md). A key that would do nothing is refused, not ignored.
  if (timeout_field != nullptr && store.type != StoreSection::Type::Postgresql) {
    reader.error(timeout_field->mark(), std::string("'timeout' applies only to store type postgresql, not ") +
                                            to_string(store.type));
  }
  return store;
}

ControlSection read_control(Reader& reader, const Field* field) {
  ControlSection control;
  if (field == nullptr) return control;
  control.enabled = true;
  const auto section = reader.section(*field, keys::kControl);
  std::optional<YAML::Mark> listen_mark;
  for (const auto& entry : section.fields) {
    if (entry.name == "socket" || entry.name == "token-file") {
      const auto path = reader.scalar(entry);
      if (!path) continue;
      if (path->empty() || path->front() != '/') {
        reader.error(entry.mark(), "'" + entry.name + "' must be an absolute path");
      } else if (entry.name == "socket" && path->size() >= kMaxSocketPath) {
        reader.error(entry.mark(), "'socket' path is longer than a UNIX socket allows (107 bytes)");
      } else if (entry.name == "socket") {
        control.socket = *path;
      } else {
        control.token_file = *path;
      }
    } else if (entry.name == "listen") {
      control.listen = reader.parsed(entry, [](std::string_view text) {
        return parse_endpoint(text, kControlPort);
      });
      listen_mark = entry.mark();
    }
  }
  // Anyone who can reach the port can change leases, loopback included (every local user can
  // reach 127.0.0.1, including those the UNIX socket's mode and owner keep out): a TCP listener
  // always needs a token. The UNIX socket stays the token-less local door.
  if (control.listen && !control.token_file) {
    reader.error(*listen_mark, "'listen' " + control.listen->address.to_string() +
                                   " needs 'token-file': every request on TCP, loopback included, "
                                   "must carry its bearer token (the UNIX 'socket' needs none)");
  }
  return control;
}

EventsSection read_events(Reader& reader, const Field* field) {
  EventsSection events;
  if (field == nullptr) return events;
  const auto section = reader.section(*field, keys::kEvents);
  if (const auto* exec = section.find("exec")) {
    const auto path = reader.scalar(*exec);
    if (path && (path->empty() || path->front() != '/')) {
      reader.error(exec->mark(), "'exec' must be an absolute path");
    } else if (path) {
      events.exec = *path;
    }
  }
  return events;
}

LogSection read_log(Reader& reader, const Field* field) {
  LogSection log;
  if (field == nullptr) return log;
  const auto section = reader.section(*field, keys::kLog);
  if (const auto* level = section.find("level")) {
    const auto text = reader.scalar(*level);
    if (text && std::find(kLogLevels.begin(), kLogLevels.end(), *text) == kLogLevels.end()) {
      reader.error(level->mark(), "unknown log level '" + *text + "'; use trace, debug, info, warn, error, critical or off");
    } else if (text) {
      log.level = *text;
    }
  }
  return log;
}

}  // namespace landlord::config::detail
