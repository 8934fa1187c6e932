// A `pools:` item in its two forms: "FIRST-LAST", or {range: FIRST-LAST, options: {...},
// classes: [...]} for a pool with options of its own or for some classes only. The subnet
// reader checks the range itself.
#include "landlord/config/keys.hpp"
#include "sections.hpp"

namespace landlord::config::detail {

std::optional<PoolItem> read_pool_item(Reader& reader, const YAML::Node& item) {
  if (!item.IsMap()) return PoolItem{item, std::nullopt, std::nullopt};
  PoolItem pool;
  const Section section = reader.section(item, item.Mark(), "pools", keys::KeyList{keys::kPool});
  const Field* range = section.find("range");
  if (range == nullptr) {
    reader.error(section.mark, "a pool map is missing required key 'range' (e.g. range: 198.18.0.100-198.18.0.199)");
    return std::nullopt;
  }
  pool.range = range->value;
  pool.options = ScopeOptions{};
  if (const Field* classes = section.find("classes")) pool.classes = *classes;
  if (range->value.IsNull()) {
    reader.error(range->key.Mark(), "'range' needs a value");
    return std::nullopt;
  }
  if (const Field* options = section.find("options")) pool.options = read_options(reader, *options);
  return pool;
}

}  // namespace landlord::config::detail
