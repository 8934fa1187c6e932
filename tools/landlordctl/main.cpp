// landlordctl: the operator's command line for a running landlord, over its control API.
// Human tables by default, --json for scripts; any error is one line on stderr and exit 1, a
// usage error exit 2 (CLI11's own codes, 105/106/..., are not what scripts expect).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <sys/ioctl.h>
#include <unistd.h>

#include "landlord/base/version.hpp"
#include "landlord/control/client.hpp"
#include "landlord/control/top.hpp"

namespace {

using Json = nlohmann::json;
using landlord::control::ClientTarget;

struct Failure {
  std::string reason;
};

[[noreturn]] void fail(const std::string& reason) { throw Failure{reason}; }

// One command to the API; Kea's result 1/2 is a failure, 3 (empty) is returned to the caller.
Json command(const ClientTarget& target, const std::string& name, Json arguments = nullptr) {
  Json request{{"command", name}};
  if (!arguments.is_null()) request["arguments"] = std::move(arguments);
  auto response = landlord::control::http_request(target, "POST", "/", request.dump());
  if (!response) fail(response.error());
  const Json answer = Json::parse(response->body, nullptr, false);
  if (answer.is_discarded() || !answer.is_object() || !answer.contains("result")) {
    fail("HTTP " + std::to_string(response->status) + " with an unexpected body from the server");
  }
  const int result = answer["result"].get<int>();
  if (result == 1 || result == 2) fail(answer.value("text", "error"));
  return answer;
}

std::string text_of(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

// A table: columns as wide as their widest cell.
void print_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) widths[i] = header[i].size();
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  const auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    std::cout << line << '\n';
  };
  print_row(header);
  for (const auto& row : rows) print_row(row);
}

std::string remaining(std::int64_t expire) {
  const std::int64_t left = expire - static_cast<std::int64_t>(std::time(nullptr));
  if (left <= 0) return "-";
  if (left < 120) return std::to_string(left) + "s";
  if (left < 7200) return std::to_string(left / 60) + "m";
  return std::to_string(left / 3600) + "h";
}

void print_leases(const Json& leases) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& lease : leases) {
    const std::string state = lease.value("lease-state", "");
    // The name in DNS and where its records stand: "alpha.lab.test (done)".
    const std::string fqdn = lease.value("fqdn", "");
    const std::string dns = fqdn.empty() ? "-" : fqdn + " (" + lease.value("dns-state", "?") + ")";
    rows.push_back({lease["ip-address"], state, lease.value("phase", "-"), lease["hw-address"],
                    lease.value("client-id", ""), lease.value("hostname", ""), dns,
                    std::to_string(lease["subnet-id"].get<int>()),
                    state == "bound" || state == "declined" ? remaining(lease["expire"]) : "-"});
  }
  print_table({"ADDRESS", "STATE", "PHASE", "HW-ADDRESS", "CLIENT-ID", "HOSTNAME", "DNS", "SUBNET", "ENDS-IN"}, rows);
}

void print_json(const Json& value) { std::cout << value.dump(2) << '\n'; }

landlord::control::Scrape scrape(const ClientTarget& target) {
  auto response = landlord::control::http_request(target, "GET", "/metrics");
  if (!response) fail(response.error());
  if (response->status != 200) fail("GET /metrics answered HTTP " + std::to_string(response->status));
  auto parsed = landlord::control::parse_metrics(response->body);
  if (!parsed) fail(parsed.error());
  return std::move(*parsed);
}

Json frame_json(const landlord::control::TopFrame& frame) {
  const auto optional = [](const std::optional<double>& value) { return value ? Json(*value) : Json(nullptr); };
  Json messages = Json::object(), leases = Json::object(), pools = Json::array();
  for (const auto& [name, value] : frame.messages) messages[name] = value;
  for (const auto& [name, value] : frame.leases) leases[name] = value;
  for (const auto& pool : frame.pools) {
    pools.push_back({{"pool", pool.pool}, {"subnet", pool.subnet}, {"total", pool.total}, {"free", pool.free},
                     {"bound", pool.bound}, {"offered", pool.offered}, {"declined", pool.declined},
                     {"lease-shortened", pool.lease_shortened}});
  }
  return {{"interval-seconds", frame.interval_s}, {"messages-per-second", messages},
          {"leases-per-second", leases}, {"dropped-per-second", frame.dropped_per_s},
          {"request-to-ack-p50-seconds", optional(frame.request_to_ack_p50_s)},
          {"request-to-ack-p99-seconds", optional(frame.request_to_ack_p99_s)},
          {"commit-mean-seconds", optional(frame.commit_mean_s)},
          {"store", {{"healthy", frame.store_healthy}, {"backlog", frame.store_backlog}}},
          {"pools", pools}};
}

// Refreshes every `interval_s` until `iterations` frames were shown (0: until interrupted). On
// a terminal each frame replaces the last; otherwise frames follow each other (--json: one
// JSON object per line).
void top(const ClientTarget& target, double interval_s, unsigned iterations, bool json) {
  const bool terminal = ::isatty(STDOUT_FILENO) == 1;
  std::size_t width = 100;
  if (winsize size{}; terminal && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) width = size.ws_col;
  auto before = scrape(target);
  auto taken = std::chrono::steady_clock::now();
  for (unsigned shown = 0; iterations == 0 || shown < iterations; ++shown) {
    std::this_thread::sleep_for(std::chrono::duration<double>(interval_s));
    auto after = scrape(target);
    const auto now = std::chrono::steady_clock::now();
    const auto frame = landlord::control::make_frame(before, after, std::chrono::duration<double>(now - taken).count());
    if (json) {
      std::cout << frame_json(frame).dump() << std::endl;
    } else {
      std::cout << (terminal ? "\x1b[H\x1b[2J" : (shown > 0 ? "\n" : "")) << render_frame(frame, width) << std::flush;
    }
    before = std::move(after);
    taken = now;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"landlordctl: talk to a running landlord through its control API"};
  app.set_version_flag("--version", landlord::version_line("landlordctl"));
  app.require_subcommand(1);
  // The global options (--json, --socket, --url, --token-file) also work after the subcommand,
  // where people type them: `landlordctl leases --json`.
  app.fallthrough();
  std::string socket_path = "/run/landlord/control.sock";
  std::string url, token_file;
  bool json = false;
  auto* socket_option = app.add_option("--socket", socket_path, "the daemon's control socket")->capture_default_str();
  app.add_option("--url", url, "[http://]ADDRESS:PORT of the TCP listener instead")->excludes(socket_option);
  app.add_option("--token-file", token_file, "file with the bearer token (TCP)");
  app.add_flag("--json", json, "print the server's JSON instead of tables");

  auto* status = app.add_subcommand("status", "the daemon's state, store health and pools");
  int subnet = 0;
  std::string state;
  auto* leases = app.add_subcommand("leases", "the lease table, in address order");
  auto* subnet_option = leases->add_option("--subnet", subnet, "only this subnet id");
  leases->add_option("--state", state, "only offered, bound, released, expired or declined");
  std::string key;
  auto* lease = app.add_subcommand("lease", "one lease, by address or hardware address");
  lease->add_option("key", key, "ADDRESS or MAC")->required();
  std::string address, mac, client_id, hostname;
  unsigned lifetime = 0;
  int add_subnet = 0;
  auto* add = app.add_subcommand("add", "lease ADDRESS to a client (in a pool, not held by another)");
  add->add_option("address", address, "ADDRESS")->required();
  add->add_option("mac", mac, "the client's MAC")->required();
  add->add_option("--client-id", client_id, "option 61, colon hex");
  add->add_option("--hostname", hostname, "host name");
  auto* lifetime_option = add->add_option("--lifetime", lifetime, "lease time in seconds (default: the subnet's)");
  auto* add_subnet_option = add->add_option("--subnet", add_subnet, "subnet id (checked against the address)");
  auto* release = app.add_subcommand("release", "revoke the lease on ADDRESS: its next renewal is NAKed");
  release->add_option("address", address, "ADDRESS")->required();
  auto* reload = app.add_subcommand("reload", "re-read the configuration file (like SIGHUP)");
  auto* stats = app.add_subcommand("stats", "counters and pool statistics (Kea's names)");
  auto* watch = app.add_subcommand("watch", "follow lease events as they happen");
  double interval_s = 2;
  unsigned iterations = 0;
  auto* top_command = app.add_subcommand("top", "a live view: message and lease rates, latency, every pool's use");
  top_command->add_option("--interval", interval_s, "seconds between refreshes")->capture_default_str()->check(CLI::Range(0.1, 3600.0));
  top_command->add_option("--iterations", iterations, "stop after this many refreshes (default: until interrupted)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& done) {  // --help, --version
    return app.exit(done);
  } catch (const CLI::ParseError& error) {
    app.exit(error);  // prints the reason and the usage
    return 2;
  }

  try {
    ClientTarget target;
    target.socket_path = socket_path;
    if (!url.empty()) {
      auto parsed = ClientTarget::from_url(url);
      if (!parsed) fail(parsed.error());
      target = *parsed;
    }
    if (!token_file.empty()) {
      std::ifstream file{token_file};
      std::string token;
      if (!file || !std::getline(file, token) || token.empty()) fail("cannot read a token from " + token_file);
      target.token = token;
    }

    if (status->parsed()) {
      const Json answer = command(target, "status-get");
      const Json statistics = command(target, "statistic-get-all")["arguments"];
      if (json) return print_json(answer), 0;
      const Json& arguments = answer["arguments"];
      std::cout << "landlord pid " << arguments["pid"] << ", up " << arguments["uptime"] << "s, config "
                << text_of(arguments["config-file"]) << " (reloaded " << arguments["reload"] << "s ago)\n"
                << "store " << text_of(arguments["store"]["type"]) << ": "
                << (arguments["store"]["healthy"].get<bool>() ? "healthy" : "NOT ACCEPTING WRITES")
                << ", backlog " << arguments["store"]["backlog"] << " records; "
                << arguments["lease-records"] << " lease records\n";
      const Json subnets = command(target, "subnet4-list")["arguments"]["subnets"];
      std::vector<std::vector<std::string>> rows;
      for (const auto& entry : subnets) {
        const std::string prefix = "subnet[" + std::to_string(entry["id"].get<int>()) + "].";
        const auto value = [&](const std::string& name) {
          return statistics.contains(prefix + name) ? statistics[prefix + name][0][0].get<std::uint64_t>() : 0;
        };
        const auto total = value("total-addresses");
        const auto used = total - std::min(total, value("free-addresses"));
        rows.push_back({std::to_string(entry["id"].get<int>()), entry["subnet"], std::to_string(total),
                        std::to_string(value("assigned-addresses")), std::to_string(value("declined-addresses")),
                        std::to_string(value("free-addresses")),
                        total == 0 ? "-" : std::to_string(used * 100 / total) + "%"});
      }
      print_table({"SUBNET", "PREFIX", "POOL", "BOUND", "DECLINED", "FREE", "USED"}, rows);
      // Each pool, with its adaptive lease time when it is in force.
      const Json configured = command(target, "config-get")["arguments"]["landlord"]["subnets"];
      rows.clear();
      for (const auto& entry : configured) {
        const std::string subnet_prefix = "subnet[" + std::to_string(entry["id"].get<int>()) + "].";
        for (std::size_t i = 0; i < entry["pools"].size(); ++i) {
          const Json& pool = entry["pools"][i];
          const std::string prefix = subnet_prefix + "pool[" + std::to_string(i) + "].";
          const auto value = [&](const std::string& name) {
            return statistics.contains(prefix + name) ? statistics[prefix + name][0][0].get<std::uint64_t>() : 0;
          };
          const auto total = value("total-addresses");
          const auto used = total - std::min(total, value("free-addresses"));
          std::string lease_time = "normal";
          if (pool.is_object()) {
            lease_time = (value("lease-shortened") != 0 ? "SHORTENED to " : "shrinks to ") + text_of(pool["lease"]["to"]) +
                    " above " + text_of(pool["lease"]["shrink-above"]);
          }
          rows.push_back({pool.is_object() ? text_of(pool["range"]) : text_of(pool), std::to_string(total),
                          std::to_string(value("assigned-addresses")), std::to_string(value("offered-addresses")),
                          std::to_string(value("declined-addresses")), std::to_string(value("free-addresses")),
                          total == 0 ? "-" : std::to_string(used * 100 / total) + "%", lease_time});
        }
      }
      std::cout << '\n';
      print_table({"POOL", "TOTAL", "BOUND", "OFFERED", "DECLINED", "FREE", "USED", "LEASE"}, rows);
    } else if (leases->parsed()) {
      Json arguments = Json::object();
      if (subnet_option->count() > 0) arguments["subnets"] = Json::array({subnet});
      if (!state.empty()) arguments["state"] = state;
      const Json answer = command(target, "lease4-get-all", arguments);
      if (json) return print_json(answer), 0;
      print_leases(answer.contains("arguments") ? answer["arguments"]["leases"] : Json::array());
    } else if (lease->parsed()) {
      Json found;
      if (key.find(':') == std::string::npos && key.find('-') == std::string::npos) {
        const Json answer = command(target, "lease4-get", {{"ip-address", key}});
        if (answer["result"] == 3) fail("no lease for " + key);
        found = answer["arguments"];
      } else {
        const Json answer = command(target, "lease4-get-all");
        std::string wanted = key;
        std::replace(wanted.begin(), wanted.end(), '-', ':');
        std::transform(wanted.begin(), wanted.end(), wanted.begin(), ::tolower);
        for (const auto& entry : answer.value("arguments", Json::object()).value("leases", Json::array())) {
          if (entry["hw-address"] == wanted && (found.is_null() || found["cltt"] < entry["cltt"])) found = entry;
        }
        if (found.is_null()) fail("no lease for " + key);
      }
      if (json) return print_json(found), 0;
      print_leases(Json::array({found}));
    } else if (add->parsed()) {
      Json arguments{{"ip-address", address}, {"hw-address", mac}};
      if (!client_id.empty()) arguments["client-id"] = client_id;
      if (!hostname.empty()) arguments["hostname"] = hostname;
      if (lifetime_option->count() > 0) arguments["valid-lft"] = lifetime;
      if (add_subnet_option->count() > 0) arguments["subnet-id"] = add_subnet;
      const Json answer = command(target, "lease4-add", arguments);
      if (json) return print_json(answer), 0;
      std::cout << text_of(answer["text"]) << '\n';
    } else if (release->parsed()) {
      const Json answer = command(target, "lease4-del", {{"ip-address", address}});
      if (answer["result"] == 3) fail("no bound lease on " + address);
      if (json) return print_json(answer), 0;
      std::cout << "revoked " << address << '\n';
    } else if (reload->parsed()) {
      const Json answer = command(target, "config-reload");
      if (json) return print_json(answer), 0;
      std::cout << text_of(answer["text"]) << '\n';
    } else if (stats->parsed()) {
      const Json answer = command(target, "statistic-get-all");
      if (json) return print_json(answer), 0;
      std::vector<std::vector<std::string>> rows;
      for (const auto& [name, value] : answer["arguments"].items()) rows.push_back({name, value[0][0].dump()});
      print_table({"STATISTIC", "VALUE"}, rows);
    } else if (watch->parsed()) {
      auto followed = landlord::control::follow_lines(target, "/events", [&](std::string_view line) {
        if (json) {
          std::cout << line << std::endl;
          return true;
        }
        const Json event = Json::parse(line, nullptr, false);
        if (event.is_discarded()) return true;
        const std::time_t seconds = static_cast<std::time_t>(event.value("time", 0.0));
        std::tm local{};
        localtime_r(&seconds, &local);
        char clock[16];
        std::strftime(clock, sizeof clock, "%H:%M:%S", &local);
        std::cout << clock << "  " << text_of(event["event"]) << "  " << text_of(event["ip-address"]) << "  "
                  << text_of(event["hw-address"]) << "  " << text_of(event.value("lease-state", Json{""}))
                  << "  " << text_of(event["reason"]) << std::endl;
        return true;
      });
      if (!followed) fail(followed.error());
      fail("the server closed the event stream");
    } else if (top_command->parsed()) {
      top(target, interval_s, iterations, json);
    }
  } catch (const Failure& failure) {
    std::cerr << "landlordctl: " << failure.reason << '\n';
    return 1;
  }
  return 0;
}
