#include "migrate_commands.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <fstream>
#include <iostream>

#include "landlord/config/loader.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/migrate/import_plan.hpp"
#include "landlord/migrate/kea_export.hpp"
#include "landlord/migrate/lease_file.hpp"
#include "landlord/server/privileges.hpp"
#include "landlord/server/restore.hpp"
#include "landlord/store/open_store.hpp"

namespace landlord::tool {
namespace {

constexpr std::size_t kExamplesShown = 5;   // per reason, on stdout
constexpr std::size_t kProblemsShown = 20;  // lines not used, on stderr

TimePoint wall_clock_now() {
  return time_from_unix_ms(std::chrono::duration_cast<Duration>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count());
}

std::optional<config::Config> load_config(const std::string& path,
                                          const std::optional<std::string>& store_path) {
  auto loaded = config::load_file(path);
  if (!loaded) {
    std::cerr << config::format_errors(loaded.error());
    return std::nullopt;
  }
  if (store_path) loaded->store.path = *store_path;
  return std::move(loaded.value());
}

// A server still answering on the configured port would keep handing out addresses behind the
// import's back (and landlord would not see the new rows until restarted).
bool port_in_use(const config::Endpoint& listen) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(listen.port);
  address.sin_addr.s_addr = htonl(listen.address.to_uint());
  const bool in_use = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 &&
                      errno == EADDRINUSE;
  ::close(fd);
  return in_use;
}

}  // namespace

int run_import(const ImportCommand& command) {
  const auto format = migrate::parse_format(command.format);
  if (!format) {
    std::cerr << "landlord import: unknown format '" << command.format << "'; use kea-csv, dhcpd or dnsmasq\n";
    return 2;
  }
  auto config = load_config(command.config_path, command.store_path);
  if (!config) return 1;
  if (config->store.type != config::StoreSection::Type::Sqlite) {
    std::cerr << "landlord import: store.type is memory: imported leases would be lost; use sqlite\n";
    return 1;
  }
  // Opened before privileges are dropped (the file may be readable by root only), read as a
  // stream: memory follows the longest line and the configured pools, not the file.
  std::ifstream input{command.lease_file, std::ios::binary};
  if (!input) {
    std::cerr << "landlord import: cannot open " << command.lease_file << ": " << std::strerror(errno) << '\n';
    return 1;
  }
  const TimePoint now = wall_clock_now();
  migrate::ImportPlanner planner{*config, migrate::is_journal(*format), now};
  migrate::read_lease_stream(*format, input, planner);
  if (input.bad()) {
    std::cerr << "landlord import: cannot read " << command.lease_file << ": " << std::strerror(errno) << '\n';
    return 1;
  }
  if (planner.leases_read() == 0 && planner.failures() > 0) {
    std::cerr << migrate::problems(planner.failure_list(), command.lease_file, kProblemsShown)
              << "landlord import: nothing written: " << command.lease_file << " is not a "
              << migrate::to_string(*format) << " lease file (no line of it reads as a lease)\n";
    return 1;
  }

  if (!command.dry_run && port_in_use(config->server.listen)) {
    std::cerr << "landlord import: port " << config->server.listen.port
              << " is in use: stop the DHCP server (landlord or the one migrated from) first\n";
    return 1;
  }
  // The foreign file is read; the store is landlord's: written as server.user, as the daemon
  // would write it, so that a daemon started later (as that user) can open it.
  if (auto dropped = server::drop_privileges(*config, server::PrivilegeOptions{true}); !dropped) {
    std::cerr << "landlord import: " << dropped.error() << '\n';
    return 1;
  }
  auto store = store::open_store(config->store);
  if (!store) {
    std::cerr << "landlord import: cannot open the lease store: " << store.error().message << '\n';
    return 1;
  }
  // The plan is made against what is stored already: an address a stored lease holds for
  // another client is refused, not overwritten.
  engine::Engine engine{*config};
  if (auto restored = server::restore_leases(**store, engine); !restored) {
    std::cerr << "landlord import: cannot read the lease store: " << restored.error().message << '\n';
    return 1;
  }
  const migrate::ImportPlan plan = std::move(planner).finish(engine);
  std::cout << command.lease_file << " (" << migrate::to_string(*format) << ")\n"
            << migrate::describe(plan, kExamplesShown) << std::flush;
  std::cerr << migrate::problems(plan, command.lease_file, kProblemsShown);
  if (plan.failures.count > 0 && !command.skip_unreadable) {
    std::cerr << "landlord import: nothing written: " << plan.failures.count
              << " lines not understood (listed above); correct them, or pass --skip-unreadable to import "
              << plan.records.size() << " leases without them\n";
    return 1;
  }
  if (plan.records.empty() && plan.live > 0) {
    std::cerr << "landlord import: nothing written: none of the " << plan.live
              << " live leases in the file can be imported (listed above)\n";
    return 1;
  }
  if (plan.records.empty()) {
    std::cout << "nothing to import: the file holds no live lease\n";
    return 0;
  }
  if (command.dry_run) {
    std::cout << "dry run: nothing written to " << config->store.path << '\n';
    return 0;
  }
  // One transaction: all of the plan is durable, or none of it.
  auto written = (*store)->commit(plan.records);
  if (!written) {
    std::cerr << "landlord import: nothing written: " << written.error().message << '\n';
    return 1;
  }
  const auto refused = std::count(written->begin(), written->end(), store::WriteResult::StaleToken);
  if (refused > 0) {  // cannot happen: the plan was made from the store's own records
    std::cerr << "landlord import: the store refused " << refused << " records (stale fencing token)\n";
    return 1;
  }
  std::cout << "imported " << plan.records.size() << " leases into " << config->store.path << '\n';
  return 0;
}

int run_export(const ExportCommand& command) {
  if (command.format != "kea-csv") {
    std::cerr << "landlord export: unknown format '" << command.format << "'; use kea-csv\n";
    return 2;
  }
  auto config = load_config(command.config_path, command.store_path);
  if (!config) return 1;
  auto store = store::open_store(config->store);
  if (!store) {
    std::cerr << "landlord export: cannot open the lease store: " << store.error().message << '\n';
    return 1;
  }
  std::vector<lease::Lease> records;
  if (auto loaded = (*store)->load([&](lease::Lease&& record) { records.push_back(std::move(record)); });
      !loaded) {
    std::cerr << "landlord export: cannot read the lease store: " << loaded.error().message << '\n';
    return 1;
  }
  std::sort(records.begin(), records.end(),
            [](const lease::Lease& a, const lease::Lease& b) { return a.address < b.address; });
  const std::string csv = migrate::export_kea_csv(records, wall_clock_now());
  if (!command.output) {
    std::cout << csv;
    return std::cout.good() ? 0 : 1;
  }
  std::ofstream output{*command.output, std::ios::binary | std::ios::trunc};
  output << csv;
  if (!output.flush()) {
    std::cerr << "landlord export: cannot write " << *command.output << '\n';
    return 1;
  }
  return 0;
}

}  // namespace landlord::tool
