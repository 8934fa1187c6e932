#include "arguments.hpp"

namespace landlord::control {
namespace {

// A key or value echoed in an error: enough to recognise, never a long request back.
constexpr std::size_t kShown = 64;
std::string shown(std::string_view text) {
  return "'" + std::string{text.substr(0, kShown)} + (text.size() <= kShown ? "'" : "...'");
}
std::string quoted(std::string_view key) { return shown(key); }

}  // namespace

Arguments::Arguments(const nlohmann::json& arguments) : arguments_(arguments) {
  if (!arguments_.is_null() && !arguments_.is_object()) fail("'arguments' must be a map");
}

void Arguments::fail(std::string message) {
  if (error_.empty()) error_ = std::move(message);
}

bool Arguments::has(std::string_view key) const {
  return arguments_.is_object() && arguments_.contains(key);
}

const nlohmann::json* Arguments::find(std::string_view key, bool required) {
  if (failed()) return nullptr;
  if (!has(key)) {
    if (required) fail("missing " + quoted(key) + " in arguments");
    return nullptr;
  }
  return &arguments_.at(std::string{key});
}

std::optional<std::string> Arguments::text(std::string_view key, bool required) {
  const auto* value = find(key, required);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) {
    fail(quoted(key) + " must be a string");
    return std::nullopt;
  }
  return value->get<std::string>();
}

std::optional<std::uint64_t> Arguments::number(std::string_view key, std::uint64_t min,
                                               std::uint64_t max, bool required) {
  const auto* value = find(key, required);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number_unsigned() || value->get<std::uint64_t>() < min ||
      value->get<std::uint64_t>() > max) {
    fail(quoted(key) + " must be an integer from " + std::to_string(min) + " to " +
         std::to_string(max));
    return std::nullopt;
  }
  return value->get<std::uint64_t>();
}

std::optional<bool> Arguments::flag(std::string_view key) {
  const auto* value = find(key, false);
  if (value == nullptr) return std::nullopt;
  if (!value->is_boolean()) {
    fail(quoted(key) + " must be true or false");
    return std::nullopt;
  }
  return value->get<bool>();
}

std::optional<Ipv4> Arguments::address(std::string_view key, bool required) {
  const auto value = text(key, required);
  if (!value) return std::nullopt;
  const auto address = Ipv4::parse(*value);
  if (!address) fail(quoted(key) + ": " + shown(*value) + " is not an IPv4 address");
  return address;
}

std::optional<HardwareAddress> Arguments::hardware(std::string_view key) {
  const auto value = text(key, false);
  if (!value) return std::nullopt;
  const auto hardware = HardwareAddress::parse(*value);
  if (!hardware) fail(quoted(key) + ": " + shown(*value) + " is not a hardware address (colon hex)");
  return hardware;
}

std::optional<ClientId> Arguments::client_id(std::string_view key) {
  const auto value = text(key, false);
  if (!value) return std::nullopt;
  const auto id = ClientId::parse(*value);
  if (!id) fail(quoted(key) + ": " + shown(*value) + " is not a client id (colon hex)");
  return id;
}

std::optional<std::string> Arguments::hostname(std::string_view key) {
  auto value = text(key, false);
  if (!value) return std::nullopt;
  if (value->size() > kMaxHostname) {
    fail(quoted(key) + " is " + std::to_string(value->size()) + " bytes; a host name (option 12) is at most " +
         std::to_string(kMaxHostname));
    return std::nullopt;
  }
  for (std::size_t i = 0; i < value->size(); ++i) {
    const auto byte = static_cast<unsigned char>((*value)[i]);
    if (byte < 0x20 || byte == 0x7f) {  // NUL, newline, escapes: they would break logs and hook lines
      fail(quoted(key) + " has a control character (byte " + std::to_string(byte) + ") at offset " +
           std::to_string(i));
      return std::nullopt;
    }
  }
  return value;
}

std::optional<std::vector<std::uint64_t>> Arguments::numbers(std::string_view key) {
  const auto* value = find(key, false);
  if (value == nullptr) return std::nullopt;
  std::vector<std::uint64_t> numbers;
  if (value->is_array()) {
    for (const auto& item : *value) {
      if (!item.is_number_unsigned()) break;
      numbers.push_back(item.get<std::uint64_t>());
    }
  }
  if (!value->is_array() || numbers.size() != value->size()) {
    fail(quoted(key) + " must be a list of integers");
    return std::nullopt;
  }
  return numbers;
}

}  // namespace landlord::control
