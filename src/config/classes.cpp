// `classes:` — client classes: a name, the match that makes a client a member, and what members
// get (options, boot fields, lease times). Pools name the classes they serve.
#include <algorithm>

#include "landlord/config/keys.hpp"
#include "landlord/config/option_encoding.hpp"
#include "landlord/config/values.hpp"
#include "sections.hpp"

namespace landlord::config::detail {
namespace {

constexpr keys::KeyList kClassKeys{keys::kClass};
constexpr keys::KeyList kMatchKeys{keys::kClassMatch};

bool is_class_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

// Option 82 sub-option values: "0x" then hex digits for bytes, anything else as its text.
Expected<std::vector<std::uint8_t>, std::string> parse_relay_id(std::string_view text) {
  if (text.empty()) return unexpected(std::string{"must not be empty"});  // "'remote-id': must ..."
  if (text.starts_with("0x")) {
    auto bytes = parse_hex_bytes(text.substr(2));
    if (!bytes || bytes->empty()) return unexpected("'" + std::string{text} + "' is not 0x and hex bytes");
    return *bytes;
  }
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

// A hardware address prefix: 1-16 colon-separated hex bytes ("52:54:00").
Expected<std::vector<std::uint8_t>, std::string> parse_hardware_prefix(std::string_view text) {
  auto bytes = parse_hex_bytes(text);
  if (!bytes || bytes->empty() || bytes->size() > 16) {
    return unexpected("'" + std::string{text} + "' is not a hardware address prefix (1-16 hex bytes, e.g. 52:54:00)");
  }
  return *bytes;
}

// "198.18.2.1" (one relay) or "198.18.2.0/24" (any relay in it).
Expected<Cidr, std::string> parse_giaddr_match(std::string_view text) {
  if (const auto address = Ipv4::parse(text)) return Cidr{*address, 32};
  if (const auto cidr = Cidr::parse(text)) return *cidr;
  return unexpected("'" + std::string{text} + "' is not an address or a network in CIDR form without host bits");
}

std::optional<ClassMatch> read_match(Reader& reader, const Field& field) {
  const auto section = reader.section(field, kMatchKeys);
  if (!field.value.IsMap()) {
    if (field.value.IsNull()) reader.error(field.key.Mark(), "'match' needs at least one condition");
    return std::nullopt;
  }
  ClassMatch match;
  bool valid = !section.fields.empty();
  // An unknown key is reported by section(); an empty map needs saying.
  if (field.value.size() == 0) reader.error(section.mark, "'match' needs at least one condition");
  for (const auto& entry : section.fields) {
    if (entry.name == "vendor-class" || entry.name == "user-class") {
      const auto text = reader.scalar(entry);
      if (text && text->empty()) reader.error(entry.mark(), "'" + entry.name + "' must not be empty");
      if (!text || text->empty()) {
        valid = false;
      } else {
        (entry.name == "vendor-class" ? match.vendor_class_prefix : match.user_class) = *text;
      }
    } else if (entry.name == "client-architecture") {
      const auto items = reader.one_or_list(entry);
      if (!items || items->empty()) {
        if (items) reader.error(entry.mark(), "'client-architecture' needs at least one type (RFC 4578: 0 BIOS, 7 x64 UEFI, ...)");
        valid = false;
        continue;
      }
      for (const auto& item : *items) {
        const auto value = reader.unsigned_integer(Field{entry.name, entry.key, item}, 0, 0xffff);
        if (!value) valid = false;
        if (value) match.client_architectures.push_back(static_cast<std::uint16_t>(*value));
      }
    } else if (entry.name == "circuit-id" || entry.name == "remote-id") {
      const auto bytes = reader.parsed(entry, parse_relay_id);
      if (!bytes) valid = false;
      if (bytes) (entry.name == "circuit-id" ? match.circuit_id : match.remote_id) = *bytes;
    } else if (entry.name == "hardware-address") {
      const auto bytes = reader.parsed(entry, parse_hardware_prefix);
      if (!bytes) valid = false;
      if (bytes) match.hardware_prefix = *bytes;
    } else if (entry.name == "giaddr") {
      const auto cidr = reader.parsed(entry, parse_giaddr_match);
      if (!cidr) valid = false;
      if (cidr) match.giaddr = *cidr;
    }
  }
  if (!valid) return std::nullopt;
  return match;
}

}  // namespace

std::vector<ClientClass> read_classes(Reader& reader, const Field& field, const LeaseTimes& lease_defaults) {
  std::vector<ClientClass> classes;
  const auto items = reader.list(field);
  if (!items) return classes;
  std::vector<YAML::Mark> marks;
  for (const auto& item : *items) {
    const auto section = reader.section(item, item.Mark(), "classes", kClassKeys);
    if (!item.IsMap()) {
      if (item.IsNull()) reader.error(item.Mark(), "a class needs 'name' and 'match'");
      continue;
    }
    ClientClass client_class;
    bool valid = true;
    const Field* name_field = section.find("name");
    if (name_field == nullptr) {
      reader.error(section.mark, "a class is missing required key 'name'");
      valid = false;
    } else if (const auto name = reader.scalar(*name_field); !name) {
      valid = false;
    } else if (!is_class_name(*name)) {
      reader.error(name_field->mark(), "'" + *name + "' is not a class name (1-64 letters, digits, '-', '_')");
      valid = false;
    } else {
      const auto earlier = std::find_if(classes.begin(), classes.end(),
                                        [&](const ClientClass& other) { return other.name == *name; });
      if (earlier != classes.end()) {
        reader.error(name_field->mark(), "class '" + *name + "' is already defined (line " +
                                             std::to_string(line_of(marks[static_cast<std::size_t>(earlier - classes.begin())])) + ")");
        valid = false;
      }
      client_class.name = *name;
    }
    if (const Field* match_field = section.find("match")) {
      auto match = read_match(reader, *match_field);
      if (match) client_class.match = std::move(*match);
      valid = valid && match.has_value();
    } else {
      reader.error(section.mark, "a class is missing required key 'match'");
      valid = false;
    }
    if (const Field* options_field = section.find("options")) {
      auto own = read_options(reader, *options_field);
      client_class.options = std::move(own.options);
      client_class.boot = std::move(own.boot);
    }
    if (const Field* lease_field = section.find("lease")) {
      const auto lease = read_lease(reader, lease_field, section.mark, lease_defaults);
      check_lease(reader, lease, " in class '" + client_class.name + "'");
      client_class.lease = lease.times;
    }
    if (!valid) continue;
    if (classes.size() == kMaxClasses) {
      reader.error(section.mark, "at most " + std::to_string(kMaxClasses) + " classes can be defined");
      continue;
    }
    classes.push_back(std::move(client_class));
    marks.push_back(name_field->mark());
  }
  return classes;
}

std::optional<std::uint64_t> resolve_classes(Reader& reader, const Field& field,
                                             const std::vector<ClientClass>& classes) {
  const auto items = reader.one_or_list(field);
  if (!items) return std::nullopt;
  if (items->empty()) {
    reader.error(field.mark(), "'classes' needs at least one class name (leave it out to serve every client)");
    return std::nullopt;
  }
  std::uint64_t set = 0;
  bool valid = true;
  for (const auto& item : *items) {
    const auto name = reader.scalar(item, "classes");
    if (!name) {
      valid = false;
      continue;
    }
    const auto found = std::find_if(classes.begin(), classes.end(),
                                    [&](const ClientClass& client_class) { return client_class.name == *name; });
    if (found == classes.end()) {
      std::string known;
      for (const auto& client_class : classes) known += (known.empty() ? "" : ", ") + client_class.name;
      reader.error(item.Mark(), "unknown class '" + *name + "'" +
                                    (known.empty() ? "; no 'classes' are defined" : "; defined: " + known));
      valid = false;
      continue;
    }
    set |= std::uint64_t{1} << static_cast<std::size_t>(found - classes.begin());
  }
  if (!valid) return std::nullopt;
  return set;
}

}  // namespace landlord::config::detail
