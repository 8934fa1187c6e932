#pragma once
// A command request's body, decoded with limits a hostile client cannot get around: nesting at
// most kMaxDepth (the tree is built iteratively, and nothing deeper is ever made, so no copy,
// dump or destruction recurses further), no key twice in one object (which "command" would run?),
// and an error that says where without echoing the body back.
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "landlord/base/expected.hpp"

namespace landlord::control {

// No command takes more than three levels ({"arguments": {"subnets": [1]}}); 32 leaves room for
// a Kea client's user-context and stops a 200,000-deep array before it is built.
inline constexpr std::size_t kMaxJsonDepth = 32;

Expected<nlohmann::json, std::string> decode_request(std::string_view body);

}  // namespace landlord::control
