#pragma once
// A DNS name (RFC 1035 §3.1) held in uncompressed wire form: length-prefixed labels ending with
// the zero-length root label. Comparison is ASCII case-insensitive (RFC 4343); the canonical
// form (lower case, RFC 4034 §6.2) is what DHCID and TSIG digests are computed over.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/expected.hpp"
#include "landlord/base/ipv4.hpp"

namespace landlord::ddns {

inline constexpr std::size_t kMaxLabelLength = 63;
inline constexpr std::size_t kMaxNameWireLength = 255;

class Name;
Expected<Name, std::string> read_name(std::span<const std::uint8_t> message, std::size_t& offset);

class Name {
 public:
  Name();  // the root, "."

  // Presentation form: labels separated by '.', a trailing '.' optional (every Name is
  // absolute). Labels of 1-63 bytes of printable ASCII except '.', '\\' and spaces; the wire
  // form at most 255 bytes. Errors say why.
  static Expected<Name, std::string> from_text(std::string_view text);
  // Built from labels already checked by the caller's rules (sanitised hostnames).
  static Expected<Name, std::string> from_labels(const std::vector<std::string>& labels);

  std::span<const std::uint8_t> wire() const { return {wire_.data(), wire_.size()}; }
  std::vector<std::string> labels() const;
  std::size_t label_count() const;
  bool is_root() const { return wire_.size() == 1; }
  std::string to_text() const;  // with the trailing dot; the root is "."
  Name canonical() const;       // lower-cased

  // This name under `suffix` (RFC 1035 concatenation); an error when the result is too long.
  Expected<Name, std::string> under(const Name& suffix) const;
  // True when this name equals `zone` or lies below it (case-insensitive).
  bool is_within(const Name& zone) const;

  bool operator==(const Name& other) const;  // case-insensitive

 private:
  friend Expected<Name, std::string> read_name(std::span<const std::uint8_t>, std::size_t&);
  std::vector<std::uint8_t> wire_;
};

// "5.0.18.198.in-addr.arpa." for 198.18.0.5 (RFC 1035 §3.5).
Name reverse_name(Ipv4 address);

// Reads a possibly compressed name (RFC 1035 §4.1.4) at `offset` in `message`; on success
// `offset` is just past the name's bytes in place (not past what a pointer refers to).
// Pointers must point strictly backwards, at most 127 of them are followed, and the expanded
// name is at most 255 bytes, so a hostile message can neither loop nor blow up.
Expected<Name, std::string> read_name(std::span<const std::uint8_t> message, std::size_t& offset);

}  // namespace landlord::ddns
