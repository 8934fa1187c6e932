#pragma once
// RFC 3442 §"DHCP Client Behavior": a client that receives classless static routes (option
// 121) ignores the Router option (3); Windows does the same with option 249. So a scope that
// gives routes and a router, but no 0.0.0.0/0 route, would leave such clients without a
// default route. As dnsmasq's and ISC's documentation advise, the reply then carries the
// default route via the first router in 121 and 249 as well (config::ServerSection::
// classless_default_route turns this off).
#include "landlord/wire/options.hpp"

namespace landlord::engine {

inline constexpr std::uint8_t kClasslessStaticRoutes = 121;    // RFC 3442
inline constexpr std::uint8_t kMsClasslessStaticRoutes = 249;  // Microsoft's code for the same

// For each of options 121 and 249 present in `options` without a 0.0.0.0/0 route, appends
// 0.0.0.0/0 via the first address of option 3. Nothing without option 3, or for a value that
// is not a valid RFC 3442 route list (the loader encodes only valid ones).
void add_default_route(wire::Options& options);

}  // namespace landlord::engine
