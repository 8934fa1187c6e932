// `ddns:`: where names go (zones, the DNS server), the TSIG key that signs the updates, and
// how the updater behaves (TTL, conflicts, timeouts). Everything lands in ddns::Settings, which
// ddns::validate checks once more; a key file that is missing or malformed is an error at the
// `key-file` line, naming the key file's own line, never its contents.
#include <string>
#include <string_view>

#include "landlord/config/keys.hpp"
#include "landlord/config/values.hpp"
#include "landlord/ddns/tsig.hpp"
#include "sections.hpp"

namespace landlord::config::detail {
namespace {

constexpr std::size_t kMaxKeyFileBytes = 64 * 1024;  // tsig-keygen writes about 100 bytes a key

std::optional<ddns::Name> read_zone(Reader& reader, const YAML::Node& node, std::string_view key) {
  return reader.parsed(node, key, [](std::string_view text) -> Expected<ddns::Name, std::string> {
    if (text.empty() || text == ".") return unexpected(std::string{"needs a zone name, e.g. lab.test"});
    return ddns::Name::from_text(text);
  });
}

// The key named `key-name`, or the only key of the file.
void read_key(Reader& reader, const Field& field, const Field* name_field, DdnsSection& ddns) {
  const auto path = reader.scalar(field);
  if (!path) return;
  if (path->empty() || path->front() != '/') {
    reader.error(field.mark(), "'key-file' must be an absolute path");
    return;
  }
  const auto text = read_regular_file(*path, true, kMaxKeyFileBytes, "a key file");
  if (!text) {
    reader.error(field.mark(), "'key-file' " + *path + ": " + text.error());
    return;
  }
  const auto keys = ddns::parse_key_file(*text, *path);
  if (!keys) {
    reader.error(field.mark(), "'key-file': " + keys.error());
    return;
  }
  ddns.key_file = *path;
  if (name_field != nullptr) {
    const auto wanted = read_zone(reader, name_field->value, "key-name");
    if (!wanted) return;
    for (const auto& key : *keys) {
      if (key.name == *wanted) {
        ddns.settings.key = key;
        return;
      }
    }
    reader.error(name_field->mark(), "'key-name': " + *path + " has no key '" + wanted->to_text() + "'");
    return;
  }
  if (keys->size() > 1) {
    reader.error(field.mark(), "'key-file': " + *path + " holds " + std::to_string(keys->size()) +
                                   " keys; say which with 'key-name'");
    return;
  }
  ddns.settings.key = keys->front();
}

// `ttl`: a percentage of the lease ("33%", RFC 4702 §5's third is the default) or a fixed time.
void read_ttl(Reader& reader, const Field& field, ddns::TtlPolicy& ttl) {
  const auto text = reader.scalar(field);
  if (!text) return;
  if (!text->empty() && text->back() == '%') {
    const auto fraction = parse_renewal_time(*text);
    if (!fraction || !std::holds_alternative<Fraction>(*fraction)) {
      reader.error(field.mark(), "'ttl': a percentage between 0% and 100% (e.g. 33%) or a duration (e.g. 10m)");
      return;
    }
    ttl.lease_fraction = std::get<Fraction>(*fraction).value;
    return;
  }
  const auto duration = parse_duration(*text);
  const auto seconds = duration ? std::chrono::duration_cast<std::chrono::seconds>(*duration).count() : 0;
  if (!duration || seconds < 1 || seconds > 0x7fffffff) {
    reader.error(field.mark(), "'ttl': a percentage of the lease (e.g. 33%) or a duration from 1s to 68 years");
    return;
  }
  ttl.fixed_s = static_cast<std::uint32_t>(seconds);
}

std::optional<std::uint32_t> read_seconds(Reader& reader, const Field& field) {
  const auto duration = reader.parsed(field, parse_duration);
  if (!duration) return std::nullopt;
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(*duration).count();
  if (seconds < 0 || seconds > 0x7fffffff) {
    reader.error(field.mark(), "'" + field.name + "': at most 68 years");
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(seconds);
}

}  // namespace

DdnsSection read_ddns(Reader& reader, const Field* field) {
  DdnsSection ddns;
  if (field == nullptr) return ddns;
  ddns.enabled = true;
  const auto section = reader.section(*field, keys::kDdns);
  ddns::Settings& settings = ddns.settings;
  bool have_server = false;
  bool have_forward = false;
  const Field* key_file = nullptr;
  const Field* key_name = nullptr;
  for (const auto& entry : section.fields) {
    if (entry.name == "server") {
      const auto server = reader.parsed(entry, [](std::string_view text) -> Expected<ddns::ServerAddress, std::string> {
        if (const auto address = ddns::parse_server_address(text)) return *address;
        return unexpected(std::string{"an IPv4 address, with :PORT when not 53 (e.g. 198.18.0.1)"});
      });
      if (server) settings.server = *server;
      have_server = true;
    } else if (entry.name == "forward-zone") {
      if (const auto zone = read_zone(reader, entry.value, entry.name)) settings.forward_zone = *zone;
      have_forward = true;
    } else if (entry.name == "reverse-zone") {
      const auto zones = reader.one_or_list(entry);
      if (!zones) continue;
      for (const auto& node : *zones) {
        if (const auto zone = read_zone(reader, node, entry.name)) settings.reverse_zones.push_back(*zone);
      }
    } else if (entry.name == "key-file") {
      key_file = &entry;
    } else if (entry.name == "key-name") {
      key_name = &entry;
    } else if (entry.name == "ttl") {
      read_ttl(reader, entry, settings.ttl);
    } else if (entry.name == "ttl-min" || entry.name == "ttl-max") {
      if (const auto seconds = read_seconds(reader, entry)) (entry.name == "ttl-min" ? settings.ttl.min_s : settings.ttl.max_s) = *seconds;
    } else if (entry.name == "conflict-resolution") {
      const auto text = reader.scalar(entry);
      if (!text) continue;
      if (const auto mode = ddns::conflict_mode_from_text(*text)) {
        settings.conflict_mode = *mode;
      } else {
        reader.error(entry.mark(), "'conflict-resolution': unknown mode '" + text->substr(0, 40) +
                                       "'; use check-with-dhcid, check-exists-with-dhcid, no-check-with-dhcid "
                                       "or no-check-without-dhcid");
      }
    } else if (entry.name == "override-client-update") {
      if (const auto value = reader.boolean(entry)) settings.override_client_update = *value;
    } else if (entry.name == "override-no-update") {
      if (const auto value = reader.boolean(entry)) settings.override_no_update = *value;
    } else if (entry.name == "tcp") {
      if (const auto value = reader.boolean(entry)) settings.always_tcp = *value;
    } else if (entry.name == "timeout") {
      const auto timeout = reader.parsed(entry, parse_duration);
      if (timeout && (*timeout < std::chrono::milliseconds{100} || *timeout > std::chrono::minutes{1})) {
        reader.error(entry.mark(), "'timeout': from 100ms to 1m");
      } else if (timeout) {
        settings.exchange_timeout = *timeout;
      }
    } else if (entry.name == "max-attempts") {
      if (const auto value = reader.unsigned_integer(entry, 1, 100)) settings.max_attempts = static_cast<unsigned>(*value);
    }
  }
  if (!have_server) reader.error(section.mark, "'ddns' needs 'server' (the DNS server that takes the updates)");
  if (!have_forward) reader.error(section.mark, "'ddns' needs 'forward-zone' (the zone clients' names go in)");
  if (key_file != nullptr) {
    read_key(reader, *key_file, key_name, ddns);
  } else if (key_name != nullptr) {
    reader.error(key_name->mark(), "'key-name' without 'key-file'");
  }
  if (!reader.failed()) {
    if (const auto valid = ddns::validate(settings); !valid) reader.error(section.mark, "'ddns': " + valid.error());
  }
  return ddns;
}

bool read_subnet_ddns(Reader& reader, const Field& field) {
  const auto section = reader.section(field, keys::kSubnetDdns);
  if (const auto* enabled = section.find("enabled")) return reader.boolean(*enabled).value_or(true);
  return true;
}

}  // namespace landlord::config::detail
