// status-get, config-get/-test/-reload, statistic-get-all, subnet4-list.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "arguments.hpp"
#include "handlers.hpp"
#include "landlord/base/hex.hpp"
#include "landlord/config/loader.hpp"
#include "landlord/config/values.hpp"
#include "landlord/control/counter_table.hpp"
#include "landlord/control/metrics.hpp"

namespace landlord::control::handlers {
namespace {

std::int64_t seconds_between(TimePoint from, TimePoint to) {
  return std::chrono::duration_cast<std::chrono::seconds>(to - from).count();
}

Json lease_times_json(const config::LeaseTimes& times) {
  return {{"time", config::format_duration(times.time)},
          {"renew", config::format_renewal_time(times.renew)},
          {"rebind", config::format_renewal_time(times.rebind)},
          {"offer-hold", config::format_duration(times.offer_hold)},
          {"decline-hold", config::format_duration(times.decline_hold)}};
}

std::string endpoint_text(const config::Endpoint& endpoint) {
  return endpoint.address.to_string() + ":" + std::to_string(endpoint.port);
}

Json subnet_json(const config::Subnet& subnet) {
  Json pools = Json::array(), relays = Json::array(), options = Json::array(),
       reservations = Json::array();
  for (const auto& pool : subnet.pools) {
    const std::string range = pool.first.to_string() + "-" + pool.last.to_string();
    const auto adaptive = std::find_if(subnet.adaptive_pools.begin(), subnet.adaptive_pools.end(),
                                       [&](const config::AdaptivePool& entry) { return entry.range.first == pool.first; });
    if (adaptive == subnet.adaptive_pools.end()) {
      pools.push_back(range);
      continue;
    }
    pools.push_back({{"range", range},
                     {"lease", {{"shrink-above", config::format_renewal_time(config::Fraction{adaptive->shrink_above})},
                                {"to", config::format_duration(adaptive->shortened_to)}}}});
  }
  for (const auto& relay : subnet.relays) relays.push_back(relay.to_string());
  for (const auto& option : subnet.options) {
    options.push_back({{"code", option.code}, {"hex", to_colon_hex(option.value)}});
  }
  for (const auto& reservation : subnet.reservations) {
    Json entry{{"address", reservation.address.to_string()}, {"hostname", reservation.hostname}};
    if (reservation.mac) entry["mac"] = reservation.mac->to_string();
    if (reservation.client_id) entry["client-id"] = reservation.client_id->to_string();
    reservations.push_back(std::move(entry));
  }
  return {{"id", subnet.id}, {"subnet", subnet.subnet.to_string()}, {"pools", pools},
          {"relays", relays}, {"interfaces", subnet.interfaces}, {"options", options},
          {"lease", lease_times_json(subnet.lease)}, {"reservations", reservations}};
}

Json config_json(const config::Config& config) {
  Json subnets = Json::array();
  for (const auto& subnet : config.subnets) subnets.push_back(subnet_json(subnet));
  Json control{{"enabled", config.control.enabled}, {"socket", config.control.socket}};
  if (config.control.listen) control["listen"] = endpoint_text(*config.control.listen);
  if (config.control.token_file) control["token-file"] = *config.control.token_file;
  Json server{{"interfaces", config.server.interfaces},
              {"listen", endpoint_text(config.server.listen)},
              {"authoritative", config.server.authoritative},
              {"classless-default-route", config.server.classless_default_route}};
  if (config.server.server_id) server["server-id"] = config.server.server_id->to_string();
  return {
      {"server", server},
      {"store",
       {{"type", config::to_string(config.store.type)},
        {"path", config.store.path},
        {"batch-max", config.store.batch_max},
        {"batch-wait", config::format_duration(config.store.batch_wait)},
        {"batch-linger", config::format_duration(config.store.batch_linger)}}},
      {"lease", lease_times_json(config.lease)},
      {"subnets", subnets},
      {"control", control},
      {"log", {{"level", config.log.level}}},
  };
}

// Kea's statistic timestamp: "2022-02-11 17:54:17.487569" (UTC here).
std::string timestamp(TimePoint now) {
  const std::time_t seconds = unix_seconds(now);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:06}", utc.tm_year + 1900, utc.tm_mon + 1,
                     utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, (unix_ms(now) % 1000) * 1000);
}

Json statistics_answer(Daemon& daemon, const TableCounts& table) {
  const std::string stamp = timestamp(daemon.now());
  const DaemonCounters counters = daemon.counters();
  Json statistics = Json::object();
  const auto set = [&](const std::string& name, std::uint64_t value) {
    statistics[name] = Json::array({Json::array({value, stamp})});
  };
  const CounterReading reading{daemon.engine().counters(), counters};
  for (const CounterRow& row : counter_table()) {
    if (!row.statistic.empty()) set(row.statistic, row.count(reading));
  }
  std::uint64_t declined = 0;
  for (const auto& usage : table.usage) {
    const std::string prefix = "subnet[" + std::to_string(usage.subnet_id) + "].";
    const SubnetLeaseCounts& subnet = table.subnet(usage.subnet_id);
    set(prefix + "total-addresses", usage.total);
    set(prefix + "free-addresses", usage.free_clean + usage.free_affinity);
    set(prefix + "assigned-addresses", subnet.bound);
    set(prefix + "declined-addresses", subnet.declined);
    declined += subnet.declined;
    // Kea's pool statistics (subnet[1].pool[0]....), plus landlord's offered count.
    for (std::size_t i = 0; i < usage.pools.size(); ++i) {
      const engine::RangeUsage& pool = usage.pools[i];
      const PoolLeaseCounts& counts = table.pools[usage.subnet_id - 1][i];
      const std::string pool_prefix = prefix + "pool[" + std::to_string(i) + "].";
      set(pool_prefix + "total-addresses", pool.total);
      set(pool_prefix + "free-addresses", pool.free_clean + pool.free_affinity);
      set(pool_prefix + "assigned-addresses", counts.bound);
      set(pool_prefix + "offered-addresses", counts.offered);
      set(pool_prefix + "declined-addresses", counts.declined);
      set(pool_prefix + "lease-shortened", pool.lease_shortened ? 1 : 0);
    }
  }
  set("declined-addresses", declined);
  return answer(kSuccess, std::to_string(statistics.size()) + " statistics", std::move(statistics));
}

}  // namespace

void status_get(Daemon& daemon, TableScanner&, const Json&, Reply reply) {
  const TimePoint now = daemon.now();
  const DaemonCounters counters = daemon.counters();
  const std::uint64_t records = daemon.engine().lease_records();
  reply(answer(kSuccess, "landlord is serving",
               {{"pid", ::getpid()},
                {"uptime", seconds_between(daemon.started_at(), now)},
                {"reload", seconds_between(daemon.reloaded_at(), now)},
                {"multi-threading-enabled", false},
                {"sockets", {{"status", "ready"}}},
                {"config-file", daemon.config_path()},
                {"subnets", daemon.config().subnets.size()},
                {"lease-records", records},
                {"store", {{"type", config::to_string(daemon.config().store.type)},
                           {"healthy", counters.store_healthy},
                           {"backlog", counters.commit_backlog}}}}));
}

void config_get(Daemon& daemon, TableScanner&, const Json&, Reply reply) {
  reply(answer(kSuccess, "configuration of " + daemon.config_path(),
               {{"landlord", config_json(daemon.config())}}));
}

namespace {

// config-test of a file: only one in the running config's directory (or below it), so the API
// cannot be made to read, as landlord's user, files it has no business with; the operator checks
// any other file with `landlord --check FILE`, as themself. A relative path is taken from that
// directory. Runs on the worker (realpath may touch a slow file system).
Expected<std::string, std::string> config_test_path(const std::string& running, const std::string& given) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path directory = fs::path{running}.parent_path();
  if (directory.empty()) directory = ".";
  const fs::path home = fs::canonical(directory, error);
  if (error) return unexpected("cannot resolve the running config's directory: " + error.message());
  fs::path path{given};
  if (path.is_relative()) path = home / path;
  if (!path.has_filename()) return unexpected(given + ": names a directory, not a config file");
  const fs::path parent = fs::canonical(path.parent_path(), error);
  if (error) return unexpected(given + ": cannot open: " + error.message());
  const auto [outside, _] = std::mismatch(home.begin(), home.end(), parent.begin(), parent.end());
  if (outside != home.end()) {
    return unexpected(given + ": config-test reads only files in " + home.string() +
                      " (the running config's directory); check others with landlord --check");
  }
  return (parent / path.filename()).string();
}

// An error text whose every line is cut to a length that holds a place and the offending token,
// never a file's line in full.
std::string cut_lines(const std::string& text) {
  constexpr std::size_t kLineShown = 240;
  std::string cut;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::size_t length = end - start;
    cut.append(text, start, std::min(length, kLineShown));
    if (length > kLineShown) cut += "...";
    cut += '\n';
    start = end + 1;
  }
  return cut;
}

// config-tests waiting for or on the worker (the loop's only): beyond it a new one is refused, so
// a client cannot queue unbounded work or memory.
std::size_t config_tests_running = 0;

}  // namespace

// landlord's configuration is YAML: the running file (no arguments), another file ("path") or
// a text ("yaml"). Kea's {"Dhcp4": {...}} is refused with that explained. The file is read and
// checked on the worker thread, never on the DHCP loop; the answer comes back to the loop.
void config_test(Daemon& daemon, TableScanner&, const Json& arguments, Reply reply) {
  Arguments args{arguments};
  auto path = args.text("path");
  auto yaml = args.text("yaml");
  if (args.failed()) return reply(answer(kError, args.error()));
  if (arguments.is_object() && !arguments.empty() && !path && !yaml) {
    return reply(answer(kError, "landlord's configuration is YAML: pass {\"path\": FILE}, "
                                "{\"yaml\": TEXT} or no arguments (the running file)"));
  }
  if (config_tests_running >= kMaxConfigTests) {
    return reply(answer(kError, std::to_string(kMaxConfigTests) +
                                    " config-tests are in progress; try again once one has answered"));
  }
  ++config_tests_running;
  auto verdict = std::make_shared<Json>();
  auto work = [verdict, yaml = std::move(yaml), path = std::move(path), running = daemon.config_path()] {
    Expected<config::Config, std::vector<config::ConfigError>> loaded = unexpected(std::vector<config::ConfigError>{});
    if (yaml) {
      loaded = config::load_string(*yaml, "arguments.yaml");
    } else if (!path) {
      loaded = config::load_regular_file(running, /*follow_symlink=*/true);
    } else if (const auto resolved = config_test_path(running, *path); !resolved) {
      *verdict = answer(kError, resolved.error());
      return;
    } else {
      loaded = config::load_regular_file(*resolved, /*follow_symlink=*/false);
    }
    *verdict = loaded ? answer(kSuccess, "Configuration seems sane: " + std::to_string(loaded->subnets.size()) + " subnets.")
                      : answer(kError, cut_lines(config::format_errors(loaded.error())));
  };
  daemon.offload(std::move(work), [verdict, reply = std::move(reply)] {
    --config_tests_running;
    reply(std::move(*verdict));
  });
}

void config_reload(Daemon& daemon, TableScanner&, const Json&, Reply reply) {
  const auto reloaded = daemon.reload();
  if (!reloaded) return reply(answer(kError, reloaded.error()));
  reply(answer(kSuccess, "Configuration successful."));
}

// Kea's statistics from the counters and a count of the lease table made in pieces between
// packets (table_scan.hpp); the answer holds a few entries per subnet and pool.
void statistic_get_all(Daemon& daemon, TableScanner& scanner, const Json&, Reply reply) {
  count_table(daemon, scanner, [&daemon, reply = std::move(reply)](const TableCounts& table) {
    reply(statistics_answer(daemon, table));
  });
}

void subnet4_list(Daemon& daemon, TableScanner&, const Json&, Reply reply) {
  Json subnets = Json::array();
  for (const auto& subnet : daemon.config().subnets) {
    subnets.push_back({{"id", subnet.id}, {"subnet", subnet.subnet.to_string()}});
  }
  const auto count = subnets.size();
  reply(answer(count == 0 ? kEmpty : kSuccess, std::to_string(count) + " IPv4 subnets found",
               {{"subnets", std::move(subnets)}}));
}

}  // namespace landlord::control::handlers
