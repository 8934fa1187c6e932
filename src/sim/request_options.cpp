#include "landlord/sim/request_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "landlord/base/duration.hpp"
#include "landlord/base/hex.hpp"
#include "landlord/base/ipv4.hpp"

namespace landlord::sim {

namespace {

constexpr std::size_t kMaxOptionLength = 255;

template <class T>
std::optional<T> number(std::string_view text) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::optional<std::uint8_t> option_code(std::string_view text) {
  const auto code = number<unsigned>(text);
  if (!code || *code < 1 || *code > 254) return std::nullopt;
  return static_cast<std::uint8_t>(*code);
}

// The flag that owns a code the client sets itself; empty when the code is free.
std::string_view owner_of(std::uint8_t code) {
  switch (code) {
    case 50: return "the client (requested address)";
    case 51: return "--request-lease-time";
    case 53: return "the client (message type)";
    case 54: return "the client (server identifier)";
    case 55: return "--prl";
    case 61: return "the client (client identifier; --no-client-id turns it off)";
    case 82: return "the relay transport";
    default: return {};
  }
}

template <class T>
void append_big_endian(std::vector<std::uint8_t>& out, T value) {
  for (int shift = static_cast<int>(sizeof(T) * 8) - 8; shift >= 0; shift -= 8) {
    out.push_back(static_cast<std::uint8_t>(value >> shift));
  }
}

Expected<std::vector<std::uint8_t>, std::string> encode(std::string_view type,
                                                        std::string_view value) {
  std::vector<std::uint8_t> out;
  const auto bad = [&](std::string_view what) {
    return unexpected(fmt::format("'{}' is not {}", value, what));
  };
  if (type == "text") {
    out.assign(value.begin(), value.end());
  } else if (type == "hex") {
    // Unseparated digits are read as pairs: "0a0b0c" is "0a:0b:0c".
    std::string colon_hex;
    if (value.find_first_of(":-") == std::string_view::npos) {
      for (std::size_t i = 0; i < value.size(); i += 2) {
        if (i > 0) colon_hex += ':';
        colon_hex += value.substr(i, 2);
      }
    } else {
      colon_hex = value;
    }
    std::array<std::uint8_t, kMaxOptionLength> bytes{};
    const auto length = parse_colon_hex(colon_hex, bytes);
    if (!length || *length == 0) return bad("up to 255 hex bytes (0a0b0c or 0a:0b:0c)");
    out.assign(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(*length));
  } else if (type == "u8") {
    const auto v = number<std::uint8_t>(value);
    if (!v) return bad("a u8 (0-255)");
    out.push_back(*v);
  } else if (type == "u16") {
    const auto v = number<std::uint16_t>(value);
    if (!v) return bad("a u16 (0-65535)");
    append_big_endian(out, *v);
  } else if (type == "u32") {
    const auto v = number<std::uint32_t>(value);
    if (!v) return bad("a u32 (0-4294967295)");
    append_big_endian(out, *v);
  } else if (type == "ipv4") {
    std::string_view rest = value;
    while (true) {
      const auto comma = rest.find(',');
      const auto address = Ipv4::parse(rest.substr(0, comma));
      if (!address) return bad("IPv4 addresses separated by commas");
      append_big_endian(out, address->to_uint());
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
  } else {
    return unexpected(
        fmt::format("unknown type '{}' (text, hex, u8, u16, u32 or ipv4)", type));
  }
  if (out.size() > kMaxOptionLength) {
    return unexpected(fmt::format("{} bytes, more than an option holds (255)", out.size()));
  }
  return out;
}

}  // namespace

Expected<ExtraOption, std::string> parse_extra_option(std::string_view text) {
  const auto first = text.find(':');
  const auto second = first == std::string_view::npos ? first : text.find(':', first + 1);
  if (second == std::string_view::npos) {
    return unexpected(fmt::format("'{}' is not CODE:TYPE:VALUE (e.g. 60:text:PXEClient)", text));
  }
  const auto code = option_code(text.substr(0, first));
  if (!code) return unexpected(fmt::format("'{}': the code must be 1-254", text));
  if (const auto owner = owner_of(*code); !owner.empty()) {
    return unexpected(fmt::format("'{}': option {} is set by {}", text, *code, owner));
  }
  auto value = encode(text.substr(first + 1, second - first - 1), text.substr(second + 1));
  if (!value) return unexpected(fmt::format("'{}': {}", text, value.error()));
  return ExtraOption{*code, std::move(*value)};
}

Expected<std::vector<std::uint8_t>, std::string> parse_parameter_request_list(
    std::string_view text) {
  std::vector<std::uint8_t> codes;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const auto code = option_code(rest.substr(0, comma));
    if (!code) {
      return unexpected(fmt::format("'{}' is not a list of option codes 1-254 (e.g. 1,3,6,51)", text));
    }
    if (std::find(codes.begin(), codes.end(), *code) != codes.end()) {
      return unexpected(fmt::format("'{}' names option {} twice", text, *code));
    }
    codes.push_back(*code);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return codes;
}

Expected<std::uint32_t, std::string> parse_lease_time_s(std::string_view text) {
  const auto lease = parse_duration(text);
  constexpr std::int64_t kLargestLeaseMs = std::int64_t{0xfffffffe} * 1000;
  if (!lease || lease->count() < 1000 || lease->count() % 1000 != 0 ||
      lease->count() > kLargestLeaseMs) {
    return unexpected(
        fmt::format("wants whole seconds from 1s (e.g. 10m, 1h), not '{}'", text));
  }
  return static_cast<std::uint32_t>(lease->count() / 1000);
}

}  // namespace landlord::sim
