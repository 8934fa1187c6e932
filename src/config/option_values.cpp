// Values of each catalogue type: the YAML form, its checks, its wire bytes.
#include "option_values.hpp"

#include <charconv>
#include <limits>

namespace landlord::config::detail {
namespace {

// A list item read with the field's name, so messages name the option it belongs to.
Field item_field(const Field& field, const YAML::Node& item) { return Field{field.name, field.key, item}; }

std::optional<std::vector<YAML::Node>> non_empty_items(Reader& reader, const Field& field,
                                                       std::string_view what) {
  if (field.value.IsNull()) {
    reader.error(field.key.Mark(), "'" + field.name + "' needs a value");
    return std::nullopt;
  }
  auto items = reader.one_or_list(field);
  if (!items) return std::nullopt;
  if (items->empty()) {
    reader.error(field.mark(), "'" + field.name + "' needs at least one " + std::string{what});
    return std::nullopt;
  }
  return items;
}

std::optional<std::vector<Ipv4>> read_addresses(Reader& reader, const Field& field) {
  const auto items = non_empty_items(reader, field, "address");
  if (!items) return std::nullopt;
  std::vector<Ipv4> addresses;
  for (const auto& item : *items) {
    if (const auto address = reader.address(item, field.name)) addresses.push_back(*address);
  }
  if (addresses.size() != items->size()) return std::nullopt;
  return addresses;
}

std::optional<std::vector<std::string>> read_names(Reader& reader, const Field& field) {
  const auto items = non_empty_items(reader, field, "domain name");
  if (!items) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& item : *items) {
    const auto name = reader.scalar(item, field.name);
    if (!name) return std::nullopt;
    if (auto one = encode_domain_name(*name); !one) {
      reader.error(item.Mark(), "'" + field.name + "': " + one.error());
      return std::nullopt;
    }
    names.push_back(*name);
  }
  return names;
}

std::optional<OptionBytes> read_routes(Reader& reader, const Field& field) {
  const auto items = non_empty_items(reader, field, "route");
  if (!items) return std::nullopt;
  std::vector<StaticRoute> routes;
  for (const auto& item : *items) {
    auto route = reader.parsed(item, field.name, parse_static_route);
    if (!route) return std::nullopt;
    routes.push_back(*route);
  }
  return encode_static_routes(routes);
}

// "198.18.0.0 255.255.0.0": two addresses apart by spaces.
Expected<OptionBytes, std::string> parse_address_pair(std::string_view text) {
  const auto space = text.find(' ');
  const auto fail = [&] {
    return unexpected("'" + std::string{text} + "' is not two addresses \"ADDRESS ADDRESS\"");
  };
  if (space == std::string_view::npos) return fail();
  std::string_view second = text.substr(space);
  while (!second.empty() && second.front() == ' ') second.remove_prefix(1);
  const auto first = Ipv4::parse(text.substr(0, space));
  const auto other = Ipv4::parse(second);
  if (!first || !other) return fail();
  const Ipv4 pair[] = {*first, *other};
  return encode_addresses(pair);
}

std::optional<OptionBytes> read_pairs(Reader& reader, const Field& field) {
  const auto items = non_empty_items(reader, field, "address pair");
  if (!items) return std::nullopt;
  OptionBytes bytes;
  for (const auto& item : *items) {
    const auto pair = reader.parsed(item, field.name, parse_address_pair);
    if (!pair) return std::nullopt;
    bytes.insert(bytes.end(), pair->begin(), pair->end());
  }
  return bytes;
}

std::optional<OptionBytes> read_u16_list(Reader& reader, const Field& field, std::uint32_t minimum) {
  const auto items = non_empty_items(reader, field, "number");
  if (!items) return std::nullopt;
  OptionBytes bytes;
  for (const auto& item : *items) {
    const auto value = reader.unsigned_integer(item_field(field, item), minimum, 0xffff);
    if (!value) return std::nullopt;
    const auto encoded = encode_u16(static_cast<std::uint16_t>(*value));
    bytes.insert(bytes.end(), encoded.begin(), encoded.end());
  }
  return bytes;
}

std::optional<OptionBytes> read_i32(Reader& reader, const Field& field) {
  const auto value = reader.parsed(field, [](std::string_view text) -> Expected<std::int32_t, std::string> {
    std::int32_t number = 0;
    const auto [end, failure] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (text.empty() || failure != std::errc{} || end != text.data() + text.size()) {
      return unexpected("'" + std::string{text} + "' is not a whole number from -2147483648 to 2147483647");
    }
    return number;
  });
  if (!value) return std::nullopt;
  return encode_i32(*value);
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

// SIP servers: all addresses (encoding 1) or all names (encoding 0), RFC 3361 §3.
std::optional<OptionBytes> read_sip_servers(Reader& reader, const Field& field) {
  const auto items = non_empty_items(reader, field, "server");
  if (!items) return std::nullopt;
  const auto first = reader.scalar((*items)[0], field.name);
  if (!first) return std::nullopt;
  if (Ipv4::parse(*first)) {
    const auto addresses = read_addresses(reader, field);
    if (!addresses) return std::nullopt;
    return encode_sip_addresses(*addresses);
  }
  const auto names = read_names(reader, field);
  if (!names) return std::nullopt;
  return *encode_sip_names(*names);
}

std::optional<OptionBytes> read_sub_options(Reader& reader, const Field& field) {
  const auto items = reader.list(field);
  if (!items) return std::nullopt;
  if (items->empty()) {
    reader.error(field.mark(), "'" + field.name + "' needs at least one sub-option");
    return std::nullopt;
  }
  std::vector<SubOption> sub_options;
  std::vector<YAML::Mark> marks;
  bool valid = true;
  for (const auto& item : *items) {
    auto entry = read_typed_entry(reader, item, "'" + field.name + "' sub-option", false);
    if (!entry) {
      valid = false;
      continue;
    }
    for (std::size_t i = 0; i < sub_options.size(); ++i) {
      if (sub_options[i].code == entry->code) {
        reader.error(entry->mark, "sub-option " + std::to_string(entry->code) + " is already set (line " +
                                      std::to_string(line_of(marks[i])) + ")");
        valid = false;
      }
    }
    if (entry->value.size() > kMaxOptionLength) {
      reader.error(entry->mark, "sub-option " + std::to_string(entry->code) + " is " +
                                    std::to_string(entry->value.size()) + " bytes; at most 255 fit");
      valid = false;
    }
    sub_options.push_back({entry->code, std::move(entry->value)});
    marks.push_back(entry->mark);
  }
  if (!valid) return std::nullopt;
  return encode_sub_options(sub_options);
}

}  // namespace

std::optional<OptionBytes> read_option_value(Reader& reader, const Field& field, OptionType type,
                                             std::uint32_t minimum) {
  switch (type) {
    case OptionType::Ip: {
      const auto address = reader.address(field);
      if (!address) return std::nullopt;
      return encode_addresses(std::span{&*address, 1});
    }
    case OptionType::IpList: {
      const auto addresses = read_addresses(reader, field);
      if (!addresses) return std::nullopt;
      return encode_addresses(*addresses);
    }
    case OptionType::IpPairs: return read_pairs(reader, field);
    case OptionType::U8:
    case OptionType::U16:
    case OptionType::U32: {
      const auto value = reader.unsigned_integer(field, minimum, type_maximum(type));
      if (!value) return std::nullopt;
      if (type == OptionType::U8) return encode_u8(static_cast<std::uint8_t>(*value));
      if (type == OptionType::U16) return encode_u16(static_cast<std::uint16_t>(*value));
      return encode_u32(static_cast<std::uint32_t>(*value));
    }
    case OptionType::I32: return read_i32(reader, field);
    case OptionType::Bool: {
      const auto value = reader.boolean(field);
      if (!value) return std::nullopt;
      return encode_bool(*value);
    }
    case OptionType::Text: return read_text(reader, field);
    case OptionType::U16List: return read_u16_list(reader, field, minimum);
    case OptionType::DomainList: {
      const auto names = read_names(reader, field);
      if (!names) return std::nullopt;
      return *encode_domain_list(*names);
    }
    case OptionType::Routes: return read_routes(reader, field);
    case OptionType::SipServers: return read_sip_servers(reader, field);
    case OptionType::Fqdn: return reader.parsed(field, encode_client_fqdn);
    case OptionType::SubOptions: return read_sub_options(reader, field);
    case OptionType::Hex:
      // An empty string is a valid zero-length option (a flag such as rapid commit).
      if (field.value.IsScalar() && field.value.Scalar().empty()) return OptionBytes{};
      return reader.parsed(field, parse_hex_bytes);
  }
  return std::nullopt;
}

std::optional<TypedEntry> read_typed_entry(Reader& reader, const YAML::Node& item,
                                           const std::string& what, bool allow_sub_options) {
  std::string types;
  for (const OptionType known : all_types()) {
    if (known == OptionType::SubOptions && !allow_sub_options) continue;
    types += (types.empty() ? "" : ", ") + std::string{type_name(known)};
  }
  const std::string needs_one = "a " + what + " needs exactly one value: " + types;
  if (!item.IsMap()) {
    reader.error(item.Mark(), "a " + what + " must be a map {code: N, <type>: value}, not " +
                                  std::string{describe(item)});
    return std::nullopt;
  }
  std::optional<Field> code_field;
  std::vector<Field> values;
  bool valid = true;
  for (auto entry = item.begin(); entry != item.end(); ++entry) {
    const YAML::Node key = entry->first;
    const std::string name = key.IsScalar() ? key.Scalar() : std::string{};
    if (name == "code") {
      code_field = Field{name, key, entry->second};
      continue;
    }
    const auto type = type_from_name(name);
    if (!type || (*type == OptionType::SubOptions && !allow_sub_options)) {
      reader.error(key.Mark(), "unknown key '" + name + "' in a " + what + "; it takes 'code' and one of: " + types);
      valid = false;
      continue;
    }
    values.push_back(Field{name, key, entry->second});
  }
  if (!code_field) {
    reader.error(item.Mark(), "a " + what + " is missing required key 'code'");
    valid = false;
  }
  if (values.size() > 1) {
    reader.error(values[1].key.Mark(), needs_one);
    valid = false;
  } else if (values.empty() && valid) {
    reader.error(item.Mark(), needs_one);
    valid = false;
  }
  if (!valid) return std::nullopt;
  const auto code = reader.unsigned_integer(*code_field, 1, 254);
  if (!code) return std::nullopt;
  const auto type = *type_from_name(values[0].name);
  auto bytes = read_option_value(reader, values[0], type);
  if (!bytes) return std::nullopt;
  return TypedEntry{static_cast<std::uint8_t>(*code), std::move(*bytes), code_field->mark()};
}

}  // namespace landlord::config::detail
