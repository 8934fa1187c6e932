// `options:` — named options and the `custom:` escape hatch, encoded to wire bytes.
#include <algorithm>

#include "landlord/config/keys.hpp"
#include "landlord/config/option_encoding.hpp"
#include "sections.hpp"

namespace landlord::config::detail {
namespace {

constexpr keys::KeyList kOptionKeys{keys::kOptions};
constexpr keys::KeyList kCustomKeys{keys::kCustomOption};

// The smallest MTU an IPv4 host must accept (RFC 791); option 26's floor (RFC 2132 §5.1).
constexpr std::uint64_t kMinimumMtu = 68;

struct Placed {
  OptionValue option;
  std::string origin;  // "'routers'" or "custom code 3", for duplicate messages
  YAML::Mark mark;
};

std::optional<OptionBytes> read_addresses(Reader& reader, const Field& field) {
  const auto items = reader.one_or_list(field);
  if (!items) return std::nullopt;
  if (items->empty()) {
    reader.error(field.mark(), "'" + field.name + "' needs at least one address");
    return std::nullopt;
  }
  std::vector<Ipv4> addresses;
  for (const auto& item : *items) {
    if (const auto address = reader.address(item, field.name)) addresses.push_back(*address);
  }
  if (addresses.size() != items->size()) return std::nullopt;
  return encode_addresses(addresses);
}

std::optional<OptionBytes> read_domain_list(Reader& reader, const Field& field) {
  const auto items = reader.one_or_list(field);
  if (!items) return std::nullopt;
  if (items->empty()) {
    reader.error(field.mark(), "'" + field.name + "' needs at least one domain name");
    return std::nullopt;
  }
  std::vector<std::string> names;
  for (const auto& item : *items) {
    const auto name = reader.scalar(item, field.name);
    if (!name) return std::nullopt;
    auto one = encode_domain_list(std::span{&*name, 1});
    if (!one) {
      reader.error(item.Mark(), "'" + field.name + "': " + one.error());
      return std::nullopt;
    }
    names.push_back(*name);
  }
  auto encoded = encode_domain_list(names);
  if (!encoded) return std::nullopt;
  return std::move(*encoded);
}

std::optional<OptionBytes> read_static_routes(Reader& reader, const Field& field) {
  const auto items = reader.one_or_list(field);
  if (!items) return std::nullopt;
  if (items->empty()) {
    reader.error(field.mark(), "'" + field.name + "' needs at least one route");
    return std::nullopt;
  }
  std::vector<StaticRoute> routes;
  for (const auto& item : *items) {
    const auto text = reader.scalar(item, field.name);
    if (!text) return std::nullopt;
    auto route = parse_static_route(*text);
    if (!route) {
      reader.error(item.Mark(), "'" + field.name + "': " + route.error());
      return std::nullopt;
    }
    routes.push_back(*route);
  }
  return encode_static_routes(routes);
}

std::optional<OptionBytes> read_text(Reader& reader, const Field& field) {
  const auto text = reader.scalar(field);
  if (!text) return std::nullopt;
  if (text->empty()) {
    reader.error(field.mark(), "'" + field.name + "' must not be empty");
    return std::nullopt;
  }
  return encode_text(*text);
}

std::optional<OptionBytes> read_named(Reader& reader, const Field& field, OptionKind kind) {
  switch (kind) {
    case OptionKind::Address: {
      const auto address = reader.address(field);
      if (!address) return std::nullopt;
      return encode_addresses(std::span{&*address, 1});
    }
    case OptionKind::Addresses: return read_addresses(reader, field);
    case OptionKind::Text: return read_text(reader, field);
    case OptionKind::U16: {
      const auto value = reader.unsigned_integer(field, kMinimumMtu, 65535);
      if (!value) return std::nullopt;
      return encode_u16(static_cast<std::uint16_t>(*value));
    }
    case OptionKind::DomainList: return read_domain_list(reader, field);
    case OptionKind::StaticRoutes: return read_static_routes(reader, field);
    case OptionKind::U8:
    case OptionKind::U32:
    case OptionKind::Hex: break;  // no named option has these kinds
  }
  return std::nullopt;
}

std::optional<OptionBytes> read_custom_value(Reader& reader, const Field& field) {
  if (field.name == "text") return read_text(reader, field);
  if (field.name == "ip") return read_named(reader, field, OptionKind::Address);
  if (field.name == "ips") return read_addresses(reader, field);
  if (field.name == "u8") {
    const auto value = reader.unsigned_integer(field, 0, 0xff);
    if (value) return encode_u8(static_cast<std::uint8_t>(*value));
  } else if (field.name == "u16") {
    const auto value = reader.unsigned_integer(field, 0, 0xffff);
    if (value) return encode_u16(static_cast<std::uint16_t>(*value));
  } else if (field.name == "u32") {
    const auto value = reader.unsigned_integer(field, 0, 0xffffffff);
    if (value) return encode_u32(static_cast<std::uint32_t>(*value));
  } else if (field.name == "hex") {
    // An empty string is a valid zero-length option (a flag such as rapid commit).
    if (field.value.IsScalar() && field.value.Scalar().empty()) return OptionBytes{};
    return reader.parsed(field, parse_hex_bytes);
  }
  return std::nullopt;
}

std::optional<Placed> read_custom(Reader& reader, const YAML::Node& item) {
  const auto section = reader.section(item, item.Mark(), "custom", kCustomKeys);
  if (section.fields.empty() && !item.IsMap()) return std::nullopt;
  const Field* code_field = section.find("code");
  std::vector<const Field*> values;
  for (const auto& entry : section.fields) {
    if (&entry != code_field) values.push_back(&entry);
  }
  if (code_field == nullptr) {
    reader.error(section.mark, "custom option is missing required key 'code'");
  }
  if (values.size() != 1) {
    reader.error(values.size() > 1 ? values[1]->key.Mark() : section.mark,
                 "a custom option needs exactly one value: text, ip, ips, u8, u16, u32 or hex");
  }
  if (code_field == nullptr || values.size() != 1) return std::nullopt;
  const auto code = reader.unsigned_integer(*code_field, 1, 254);
  if (!code) return std::nullopt;
  if (const auto reason = reserved_option_reason(static_cast<std::uint8_t>(*code))) {
    reader.error(code_field->mark(), "code " + std::to_string(*code) + " cannot be configured: " + *reason);
    return std::nullopt;
  }
  auto bytes = read_custom_value(reader, *values[0]);
  if (!bytes) return std::nullopt;
  return Placed{OptionValue{static_cast<std::uint8_t>(*code), std::move(*bytes)},
                "custom code " + std::to_string(*code), code_field->mark()};
}

}  // namespace

std::vector<OptionValue> read_options(Reader& reader, const Field& field) {
  const auto section = reader.section(field, kOptionKeys);
  std::vector<Placed> placed;
  for (const auto& entry : section.fields) {
    if (entry.name == "custom") {
      const auto items = reader.list(entry);
      if (!items) continue;
      for (const auto& item : *items) {
        if (auto custom = read_custom(reader, item)) placed.push_back(std::move(*custom));
      }
      continue;
    }
    const NamedOption* named = find_named_option(entry.name);
    LANDLORD_ASSERT(named != nullptr);  // kOptionKeys lists only named options and "custom"
    if (auto bytes = read_named(reader, entry, named->kind)) {
      placed.push_back(Placed{OptionValue{named->code, std::move(*bytes)}, "'" + entry.name + "'", entry.mark()});
    }
  }
  std::vector<OptionValue> options;
  for (std::size_t index = 0; index < placed.size(); ++index) {
    const auto& current = placed[index];
    const auto earlier = std::find_if(placed.begin(), placed.begin() + static_cast<std::ptrdiff_t>(index),
                                      [&](const Placed& other) { return other.option.code == current.option.code; });
    if (earlier != placed.begin() + static_cast<std::ptrdiff_t>(index)) {
      reader.error(current.mark, "option " + std::to_string(current.option.code) + " is already set by " +
                                     earlier->origin + " (line " + std::to_string(line_of(earlier->mark)) + ")");
      continue;
    }
    if (current.option.value.size() > kMaxOptionLength) {
      reader.error(current.mark, "option " + std::to_string(current.option.code) + " is " +
                                     std::to_string(current.option.value.size()) + " bytes; at most " +
                                     std::to_string(kMaxOptionLength) + " fit in one option");
      continue;
    }
    options.push_back(current.option);
  }
  return options;
}

std::vector<OptionValue> merge_options(std::vector<OptionValue> own,
                                       const std::vector<OptionValue>& defaults) {
  for (const auto& fallback : defaults) {
    const bool overridden = std::any_of(own.begin(), own.end(),
                                        [&](const OptionValue& option) { return option.code == fallback.code; });
    if (!overridden) own.push_back(fallback);
  }
  return own;
}

}  // namespace landlord::config::detail
