#include "landlord/sim/client_groups.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace landlord::sim {

namespace {

Expected<double, std::string> parse_share(std::string_view text) {
  const bool percent = text.ends_with('%');
  const std::string_view number = percent ? text.substr(0, text.size() - 1) : text;
  double value = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || error != std::errc{} || end != number.data() + number.size()) {
    return unexpected(fmt::format("share '{}' is not a fraction (0.3) or a percentage (30%)", text));
  }
  if (percent) value /= 100;
  if (!(value > 0 && value <= 1)) {
    return unexpected(fmt::format("share '{}' must be above 0 and at most all clients", text));
  }
  return value;
}

}  // namespace

Expected<ClientGroup, std::string> parse_client_group(std::string_view text) {
  ClientGroup group;
  bool has_share = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(';', start), text.size());
    const std::string_view field = text.substr(start, end - start);
    start = end + 1;
    if (field.empty()) continue;
    const auto equals = field.find('=');
    if (equals == std::string_view::npos) {
      return unexpected(fmt::format("'{}' is not KEY=VALUE", field));
    }
    const std::string_view key = field.substr(0, equals);
    const std::string_view value = field.substr(equals + 1);
    if (key == "share") {
      auto share = parse_share(value);
      if (!share) return unexpected(share.error());
      group.share = *share;
      has_share = true;
    } else if (key == "option") {
      auto option = parse_extra_option(value);
      if (!option) return unexpected(option.error());
      auto& extra = group.options.extra;
      if (std::any_of(extra.begin(), extra.end(),
                      [&](const ExtraOption& o) { return o.code == option->code; })) {
        return unexpected(fmt::format("option {} given twice", option->code));
      }
      extra.push_back(std::move(*option));
    } else if (key == "prl") {
      auto list = parse_parameter_request_list(value);
      if (!list) return unexpected(fmt::format("prl {}", list.error()));
      group.options.parameter_request_list = std::move(*list);
    } else if (key == "request_lease_time") {
      auto lease = parse_lease_time_s(value);
      if (!lease) return unexpected(fmt::format("request_lease_time {}", lease.error()));
      group.options.lease_time_s = *lease;
    } else {
      return unexpected(fmt::format("unknown key '{}' (share, option, prl, request_lease_time)", key));
    }
  }
  if (!has_share) return unexpected(std::string("a group needs its share (share=30%)"));
  return group;
}

RequestOptions merged(const RequestOptions& run, const RequestOptions& group) {
  RequestOptions options = run;
  for (const ExtraOption& option : group.extra) {
    const auto same = std::find_if(options.extra.begin(), options.extra.end(),
                                   [&](const ExtraOption& o) { return o.code == option.code; });
    if (same != options.extra.end())
      *same = option;
    else
      options.extra.push_back(option);
  }
  if (!group.parameter_request_list.empty()) {
    options.parameter_request_list = group.parameter_request_list;
  }
  if (group.lease_time_s) options.lease_time_s = group.lease_time_s;
  return options;
}

std::size_t group_of(ClientIndex index, std::span<const ClientGroup> groups) {
  // Golden-ratio (Weyl) sequence: frac(i × 0.618...) fills [0, 1) evenly for any stretch of i.
  constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
  const double position =
      static_cast<double>((static_cast<std::uint64_t>(index) * kGolden) >> 11) * 0x1.0p-53;
  double upper = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    upper += groups[g].share;
    if (position < upper) return g;
  }
  return groups.size();
}

}  // namespace landlord::sim
