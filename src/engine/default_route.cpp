#include "default_route.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace landlord::engine {
namespace {

enum class Routes : std::uint8_t { WithDefault, WithoutDefault, Invalid };

// RFC 3442 §3: each route is its prefix length, the destination's significant octets
// (ceil(length / 8)) and the router's four.
Routes read_routes(std::span<const std::uint8_t> value) {
  bool has_default = false;
  std::size_t at = 0;
  while (at < value.size()) {
    const std::size_t length = value[at];
    if (length > 32) return Routes::Invalid;
    const std::size_t width = 1 + (length + 7) / 8 + 4;
    if (at + width > value.size()) return Routes::Invalid;
    if (length == 0) has_default = true;
    at += width;
  }
  return has_default ? Routes::WithDefault : Routes::WithoutDefault;
}

}  // namespace

void add_default_route(wire::Options& options) {
  const auto routers = options.get(wire::option::kRouters);
  if (routers.size() < 4) return;
  // A copy: setting an option may move the others' bytes.
  std::array<std::uint8_t, 4> router{};
  std::copy_n(routers.begin(), 4, router.begin());
  for (const std::uint8_t code : {kClasslessStaticRoutes, kMsClasslessStaticRoutes}) {
    if (!options.has(code)) continue;
    const auto routes = options.get(code);
    if (read_routes(routes) != Routes::WithoutDefault) continue;
    std::vector<std::uint8_t> value(routes.begin(), routes.end());
    value.push_back(0);  // 0.0.0.0/0: no destination octets
    value.insert(value.end(), router.begin(), router.end());
    options.set(code, value);
  }
}

}  // namespace landlord::engine
