#pragma once
// The readers of each part of the file, shared by the loader's source files.
#include <optional>
#include <string_view>
#include <vector>

#include "landlord/config/config.hpp"
#include "yaml_reader.hpp"

namespace landlord::config::detail {

// A `lease:` map merged over a base, remembering which keys it set and where, so that a
// T1/T2 conflict points at the line that caused it.
struct LeaseSection {
  LeaseTimes times;
  YAML::Mark mark;
  std::optional<YAML::Mark> time, renew, rebind, min, max;
  bool sets_timers() const { return time || renew || rebind || min || max; }
};

// `field` may be null (no `lease:` key): the base, unchanged.
LeaseSection read_lease(Reader& reader, const Field* field, const YAML::Mark& fallback,
                        const LeaseTimes& base);
// T1 > 0, T1 < T2 < lease time, and min <= time <= max with T1 and T2 valid for every lease
// time in between; `context` ends the message (e.g. " in subnet 198.18.0.0/24").
void check_lease(Reader& reader, const LeaseSection& lease, std::string_view context);

// What an `options:` map sets: options by name or code, and the boot header fields.
struct ScopeOptions {
  std::vector<OptionValue> options;
  BootFields boot;
};
ScopeOptions read_options(Reader& reader, const Field& field);
// A lease time (`time`, `min`, `max`, a pool's `to`): whole seconds within 32 bits, > 0.
std::optional<Duration> read_lease_time(Reader& reader, const Field& field);
// The subnet's own options, then each default it does not set (by code).
std::vector<OptionValue> merge_options(std::vector<OptionValue> own,
                                       const std::vector<OptionValue>& defaults);
// Each boot field the scope does not set taken from the defaults.
BootFields merge_boot(BootFields own, const BootFields& defaults);

// A `pools:` item (pools.cpp): "FIRST-LAST", or a map {range: FIRST-LAST, options: {...},
// classes: [...], lease: {shrink-above, to}}; options, classes and lease only in the map form.
struct PoolItem {
  AddressRange range;
  YAML::Mark mark;  // the range
  std::optional<ScopeOptions> options;
  std::optional<Field> classes;  // resolved against the defined classes by the subnet reader
  std::optional<AdaptivePool> adaptive;
  YAML::Mark adaptive_mark;  // the pool's lease 'to'
};

// `classes:`: each class's name, match, options and lease (merged over `lease_defaults`).
std::vector<ClientClass> read_classes(Reader& reader, const Field& field, const LeaseTimes& lease_defaults);
// A `classes:` list of names (a pool's) as the set of their indexes; unknown names are errors.
std::optional<std::uint64_t> resolve_classes(Reader& reader, const Field& field,
                                             const std::vector<ClientClass>& classes);
std::optional<PoolItem> read_pool_item(Reader& reader, const YAML::Node& item);
// `to` shorter than the subnet's longest lease, with room for its T1 and T2.
void check_adaptive_pool(Reader& reader, const PoolItem& pool, const LeaseTimes& subnet_lease);

// A subnet's `admission:` map (admission.cpp): the defaults with the keys it sets applied.
Admission read_admission(Reader& reader, const Field& field);
// server.discover-max-wait: 0s (never shed) to 10s.
std::optional<Duration> read_discover_max_wait(Reader& reader, const Field& field);

ServerSection read_server(Reader& reader, const Field* field);
StoreSection read_store(Reader& reader, const Field* field);
ControlSection read_control(Reader& reader, const Field* field);
EventsSection read_events(Reader& reader, const Field* field);
LogSection read_log(Reader& reader, const Field* field);
// `peers:` (peers.cpp), checked against the server's id and the store it shares.
PeersSection read_peers(Reader& reader, const Field* field, const ServerSection& server,
                        const StoreSection& store);

// `ddns:` (ddns.cpp): the updater's settings with the TSIG key read from `key-file`; and a
// subnet's `ddns:` map (whether its clients' names go to DNS).
DdnsSection read_ddns(Reader& reader, const Field* field);
bool read_subnet_ddns(Reader& reader, const Field& field);

// A file someone names (a config-test's config, a key file): only a regular file, opened without
// blocking, close-on-exec, not through a symbolic link unless `follow_symlink`, at most
// `max_bytes`. The error says why, never what the file holds; `what` names the kind ("a key file").
Expected<std::string, std::string> read_regular_file(const std::string& path, bool follow_symlink,
                                                     std::size_t max_bytes, std::string_view what);

// An interface name as the kernel takes it: 1-15 bytes, no '/', ':' or whitespace.
bool is_interface_name(std::string_view name);
// A login name as useradd takes it: 1-32 bytes, not starting with '-', no ':', '/' or spaces.
bool is_user_name(std::string_view name);

struct SubnetDefaults {
  const LeaseTimes& lease;
  const ScopeOptions& options;
  const std::vector<ClientClass>& classes;
  const ServerSection& server;
  const PeersSection& peers;
  const DdnsSection& ddns;
};
// Every subnet with its own checks, then the checks across subnets (overlaps, relays).
std::vector<Subnet> read_subnets(Reader& reader, const Field& field, const SubnetDefaults& defaults);

}  // namespace landlord::config::detail
