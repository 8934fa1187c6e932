// One item of a subnet's `pools:`: a range ("198.18.0.100-198.18.0.199", a CIDR block), or a
// map with the range and the pool's own settings: options, the classes it serves, and
// `lease: {shrink-above: 90%, to: 5m}` (the adaptive lease time). The subnet reader checks the
// range against the subnet.
#include <variant>

#include "landlord/config/keys.hpp"
#include "landlord/config/values.hpp"
#include "sections.hpp"

namespace landlord::config::detail {
namespace {

constexpr keys::KeyList kPoolKeys{keys::kPool};
constexpr keys::KeyList kPoolLeaseKeys{keys::kPoolLease};

std::optional<double> read_share(Reader& reader, const Field& field) {
  const auto share = reader.parsed(field, parse_renewal_time);
  if (!share) return std::nullopt;
  if (const auto* fraction = std::get_if<Fraction>(&*share)) return fraction->value;
  reader.error(field.mark(), "'shrink-above' is a share of the pool's addresses in use, like 90%");
  return std::nullopt;
}

}  // namespace

std::optional<PoolItem> read_pool_item(Reader& reader, const YAML::Node& item) {
  if (!item.IsMap()) {
    const auto range = reader.parsed(item, "pools", parse_range);
    if (!range) return std::nullopt;
    return PoolItem{*range, item.Mark(), std::nullopt, std::nullopt, std::nullopt, {}};
  }
  const auto section = reader.section(item, item.Mark(), "pools", kPoolKeys);
  const Field* range_field = section.find("range");
  if (range_field == nullptr) {
    reader.error(section.mark, "a pool written as a map needs 'range' (e.g. range: 198.18.0.100-198.18.0.199)");
    return std::nullopt;
  }
  const auto range = reader.parsed(*range_field, parse_range);
  if (!range) return std::nullopt;
  PoolItem pool{*range, range_field->mark(), ScopeOptions{}, std::nullopt, std::nullopt, {}};
  if (const Field* classes = section.find("classes")) pool.classes = *classes;
  if (const Field* options = section.find("options")) pool.options = read_options(reader, *options);
  const Field* lease_field = section.find("lease");
  if (lease_field == nullptr) return pool;
  const auto lease = reader.section(*lease_field, kPoolLeaseKeys);
  const Field* above = lease.find("shrink-above");
  const Field* to = lease.find("to");
  if (above == nullptr || to == nullptr) {
    reader.error(lease.mark, "a pool's lease needs both 'shrink-above' (e.g. 90%) and 'to' (e.g. 5m)");
    return std::nullopt;
  }
  const auto share = read_share(reader, *above);
  const auto shortened = read_lease_time(reader, *to);
  if (!share || !shortened) return std::nullopt;
  pool.adaptive = AdaptivePool{*range, *share, *shortened};
  pool.adaptive_mark = to->mark();
  return pool;
}

void check_adaptive_pool(Reader& reader, const PoolItem& pool, const LeaseTimes& subnet_lease) {
  if (!pool.adaptive) return;
  const Duration to = pool.adaptive->shortened_to;
  const std::string where = " (pool " + format_range(pool.range) + ")";
  if (to >= subnet_lease.time) {
    reader.error(pool.adaptive_mark, "'to' " + format_duration(to) + " must be shorter than the subnet's lease time " +
                                         format_duration(subnet_lease.time) + where);
    return;
  }
  if (subnet_lease.min && to < *subnet_lease.min) {
    reader.error(pool.adaptive_mark, "'to' " + format_duration(to) + " is below the subnet's lease 'min' " +
                                         format_duration(*subnet_lease.min) + where);
    return;
  }
  const Duration renew = subnet_lease.renew_duration(to);
  const Duration rebind = subnet_lease.rebind_duration(to);
  if (renew.count() < 1000 || renew >= rebind || rebind >= to) {
    reader.error(pool.adaptive_mark, "'to' " + format_duration(to) + " leaves no room for the subnet's T1 (" +
                                         format_duration(renew) + ") and T2 (" + format_duration(rebind) +
                                         "): 1s <= T1 < T2 < lease time" + where);
  }
}

}  // namespace landlord::config::detail
