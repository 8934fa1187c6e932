// `options:` — options by catalogue name and the `custom:` entries by code and type, encoded to
// wire bytes once, at load.
#include <algorithm>

#include "landlord/config/option_encoding.hpp"
#include "option_values.hpp"
#include "sections.hpp"

namespace landlord::config::detail {
namespace {

struct Placed {
  OptionValue option;
  std::string origin;  // "'routers'" or "custom code 3", for duplicate messages
  YAML::Mark mark;
  std::size_t longest = kMaxOptionLength;
};

std::optional<Placed> read_custom(Reader& reader, const YAML::Node& item) {
  auto entry = read_typed_entry(reader, item, "custom option", true);
  if (!entry) return std::nullopt;
  if (const auto reason = reserved_option_reason(entry->code)) {
    reader.error(entry->mark, "code " + std::to_string(entry->code) + " cannot be configured: " + *reason);
    return std::nullopt;
  }
  return Placed{OptionValue{entry->code, std::move(entry->value)},
                "custom code " + std::to_string(entry->code), entry->mark};
}

// Keys of an `options:` map that set BOOTP header fields, not options.
constexpr std::string_view kBootKeys[] = {"next-server", "boot-file", "server-hostname"};
bool is_boot_key(std::string_view name) {
  return std::find(std::begin(kBootKeys), std::end(kBootKeys), name) != std::end(kBootKeys);
}

// `file` holds 128 bytes and `sname` 64, each with a terminating NUL (RFC 2131 §2).
constexpr std::size_t kLongestBootFile = 127;
constexpr std::size_t kLongestServerHostname = 63;

void read_boot_field(Reader& reader, const Field& field, BootFields& boot) {
  if (field.name == "next-server") {
    const auto address = reader.address(field);
    if (address && (address->is_zero() || address->is_broadcast())) {
      reader.error(field.mark(), "'next-server' must be a server's address, not " + address->to_string());
    } else if (address) {
      boot.next_server = *address;
    }
    return;
  }
  const auto text = reader.scalar(field);
  if (!text) return;
  const std::size_t longest = field.name == "boot-file" ? kLongestBootFile : kLongestServerHostname;
  if (text->empty()) {
    reader.error(field.mark(), "'" + field.name + "' must not be empty");
  } else if (text->size() > longest) {
    reader.error(field.mark(), "'" + field.name + "' is " + std::to_string(text->size()) + " bytes; the " +
                                   (field.name == "boot-file" ? "`file`" : "`sname`") + " field holds at most " +
                                   std::to_string(longest));
  } else if (text->find('\0') != std::string::npos) {
    reader.error(field.mark(), "'" + field.name + "' must not contain a NUL byte");
  } else {
    (field.name == "boot-file" ? boot.boot_file : boot.server_hostname) = *text;
  }
}

// The catalogue's names, for "did you mean".
const std::vector<std::string_view>& option_keys() {
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> names{"custom", "next-server", "boot-file", "server-hostname"};
    for (const auto& entry : option_catalogue()) names.push_back(entry.name);
    return names;
  }();
  return keys;
}

// The map's fields with known keys; unknown and duplicate keys are reported.
std::vector<Field> option_fields(Reader& reader, const Field& field) {
  std::vector<Field> fields;
  if (field.value.IsNull()) return fields;
  if (!field.value.IsMap()) {
    reader.error(field.value.Mark(), "'" + field.name + "' must be a map of option names (routers, dns-servers, ...), not " +
                                         std::string{describe(field.value)});
    return fields;
  }
  for (auto entry = field.value.begin(); entry != field.value.end(); ++entry) {
    const YAML::Node key = entry->first;
    if (!key.IsScalar()) {
      reader.error(key.Mark(), "a key in '" + field.name + "' must be an option name, not " + std::string{describe(key)});
      continue;
    }
    const std::string name = key.Scalar();
    if (name != "custom" && !is_boot_key(name) && find_option(name) == nullptr) {
      const auto suggestion = nearest(name, option_keys());
      reader.error(key.Mark(), "unknown option '" + name + "'" +
                                   (suggestion ? "; did you mean '" + std::string{*suggestion} + "'?"
                                               : "; see the option names in docs/configuration.md, or give it by code under 'custom'"));
      continue;
    }
    const auto earlier = std::find_if(fields.begin(), fields.end(), [&](const Field& other) { return other.name == name; });
    if (earlier != fields.end()) {
      reader.error(key.Mark(), "duplicate key '" + name + "' (first on line " + std::to_string(line_of(earlier->key.Mark())) + ")");
      continue;
    }
    fields.push_back(Field{name, key, entry->second});
  }
  return fields;
}

}  // namespace

ScopeOptions read_options(Reader& reader, const Field& field) {
  ScopeOptions scope;
  std::vector<Placed> placed;
  for (const auto& entry : option_fields(reader, field)) {
    if (is_boot_key(entry.name)) {
      read_boot_field(reader, entry, scope.boot);
      continue;
    }
    if (entry.name == "custom") {
      const auto items = reader.list(entry);
      if (!items) continue;
      for (const auto& item : *items) {
        if (auto custom = read_custom(reader, item)) placed.push_back(std::move(*custom));
      }
      continue;
    }
    const CatalogueEntry* known = find_option(entry.name);
    LANDLORD_ASSERT(known != nullptr);  // option_fields keeps only catalogue names and "custom"
    if (auto bytes = read_option_value(reader, entry, known->type, known->minimum)) {
      const std::size_t longest = type_may_be_split(known->type) ? kMaxSplitOptionLength : kMaxOptionLength;
      placed.push_back(Placed{OptionValue{known->code, std::move(*bytes)}, "'" + entry.name + "'", entry.mark(), longest});
    }
  }
  std::vector<OptionValue>& options = scope.options;
  for (std::size_t index = 0; index < placed.size(); ++index) {
    const auto& current = placed[index];
    const auto earlier = std::find_if(placed.begin(), placed.begin() + static_cast<std::ptrdiff_t>(index),
                                      [&](const Placed& other) { return other.option.code == current.option.code; });
    if (earlier != placed.begin() + static_cast<std::ptrdiff_t>(index)) {
      reader.error(current.mark, "option " + std::to_string(current.option.code) + " is already set by " +
                                     earlier->origin + " (line " + std::to_string(line_of(earlier->mark)) + ")");
      continue;
    }
    if (current.option.value.size() > current.longest) {
      reader.error(current.mark, "option " + std::to_string(current.option.code) + " is " +
                                     std::to_string(current.option.value.size()) + " bytes; at most " +
                                     std::to_string(current.longest) +
                                     (current.longest == kMaxOptionLength ? " fit in one option" : " are sent"));
      continue;
    }
    options.push_back(current.option);
  }
  return scope;
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

BootFields merge_boot(BootFields own, const BootFields& defaults) {
  if (!own.next_server) own.next_server = defaults.next_server;
  if (!own.boot_file) own.boot_file = defaults.boot_file;
  if (!own.server_hostname) own.server_hostname = defaults.server_hostname;
  return own;
}

}  // namespace landlord::config::detail
