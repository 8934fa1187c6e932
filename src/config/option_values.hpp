#pragma once
// Reading one option value of a catalogue type from YAML, checked and encoded for the wire.
#include <cstdint>
#include <optional>
#include <string>

#include "landlord/config/option_encoding.hpp"
#include "yaml_reader.hpp"

namespace landlord::config::detail {

// The value of `field` as `type`; integers below `minimum` are refused. nullopt after an error
// (reported at the value's place).
std::optional<OptionBytes> read_option_value(Reader& reader, const Field& field, OptionType type,
                                             std::uint32_t minimum = 0);

// An option given by code and type: `{code: 150, ip-list: [198.18.0.69]}` (a `custom:` entry or
// a sub-option of option 43): exactly one value key, named by its type.
struct TypedEntry {
  std::uint8_t code = 0;
  OptionBytes value;
  YAML::Mark mark;  // the code's place
};
// `what` names the list in messages ("custom", "vendor-specific"); sub-options may not nest.
std::optional<TypedEntry> read_typed_entry(Reader& reader, const YAML::Node& item,
                                           const std::string& what, bool allow_sub_options);

}  // namespace landlord::config::detail
