// Parsing hostile bytes: every read is bounds-checked against the field it belongs to, every loop
// advances, and nothing allocates (Options has inline storage).
#include <algorithm>
#include <cstring>

#include "landlord/base/big_endian.hpp"
#include "landlord/wire/message.hpp"
#include "layout.hpp"

namespace landlord::wire {

namespace detail {

// Joins the instances of each code (RFC 3396) in two passes: the first sizes every joined value,
// the second copies each instance straight to its final place. Nothing is moved twice, so the
// bytes needed never exceed the option bytes in the packet.
class OptionsAssembler {
 public:
  explicit OptionsAssembler(Options& options) : options_(options) { options_.clear(); }

  // Pass one. False when the joined values would not fit the inline storage.
  bool count(std::uint8_t code, std::size_t length) {
    if (!options_.present_[code]) {
      options_.present_[code] = true;
      options_.index_[code] = static_cast<std::uint8_t>(options_.count_);
      options_.order_[options_.count_] = code;
      options_.length_[options_.count_] = 0;
      ++options_.count_;
    }
    total_ += length;
    if (total_ > Options::kCapacityBytes) return false;
    const std::uint8_t position = options_.index_[code];
    options_.length_[position] = static_cast<std::uint16_t>(options_.length_[position] + length);
    return true;
  }

  // Between the passes: values laid out back to back in order of first appearance.
  void lay_out() {
    std::uint16_t offset = 0;
    for (std::size_t position = 0; position < options_.count_; ++position) {
      options_.offset_[position] = offset;
      filled_[position] = 0;
      offset = static_cast<std::uint16_t>(offset + options_.length_[position]);
    }
    options_.used_ = offset;
  }

  // Pass two: the same instances in the same order.
  void copy(std::uint8_t code, std::span<const std::uint8_t> value) {
    const std::uint8_t position = options_.index_[code];
    if (!value.empty()) {
      std::memcpy(options_.data_.data() + options_.offset_[position] + filled_[position],
                  value.data(), value.size());
    }
    filled_[position] = static_cast<std::uint16_t>(filled_[position] + value.size());
  }

 private:
  Options& options_;
  std::size_t total_ = 0;
  std::array<std::uint16_t, 256> filled_;
};

}  // namespace detail

namespace {

using Bytes = std::span<const std::uint8_t>;

struct Field {
  std::size_t begin;
  std::size_t end;
  bool end_required;  // sname/file when overloaded must hold END (RFC 2132 §9.3)
};

ParseError error_at(ParseError::Kind kind, std::size_t offset) { return ParseError{kind, offset}; }

// Calls visit(code, value, offset) for each option in the field until END; PAD is skipped.
template <typename Visit>
std::optional<ParseError> walk(Bytes packet, Field field, Visit&& visit) {
  std::size_t position = field.begin;
  while (position < field.end) {
    const std::uint8_t code = packet[position];
    if (code == option::kPad) {
      ++position;
      continue;
    }
    if (code == option::kEnd) return std::nullopt;
    if (field.end - position < 2) return error_at(ParseError::Kind::OptionOverrun, position);
    const std::size_t length = packet[position + 1];
    if (field.end - position - 2 < length) {
      return error_at(ParseError::Kind::OptionOverrun, position);
    }
    if (auto error = visit(code, packet.subspan(position + 2, length), position)) return error;
    position += 2 + length;
  }
  if (field.end_required) return error_at(ParseError::Kind::MissingEnd, position);
  return std::nullopt;  // the last option ended exactly at the end of the packet: tolerated
}

std::uint16_t read_u16(Bytes packet, std::size_t at) {
  return load_be16(&packet[at]);
}

std::uint32_t read_u32(Bytes packet, std::size_t at) {
  return load_be32(&packet[at]);
}

std::optional<ParseError> check_header(Bytes packet) {
  using Kind = ParseError::Kind;
  if (packet.size() < layout::kOptions) return error_at(Kind::TooShort, packet.size());
  if (packet.size() > kMaxPacketSize) return error_at(Kind::TooLong, kMaxPacketSize);
  const std::uint8_t op = packet[layout::kOp];
  if (op != static_cast<std::uint8_t>(Op::BootRequest) &&
      op != static_cast<std::uint8_t>(Op::BootReply)) {
    return error_at(Kind::BadOp, layout::kOp);
  }
  if (packet[layout::kHlen] > HardwareAddress::kMaxLength) {
    return error_at(Kind::BadHardwareLength, layout::kHlen);
  }
  if (!std::equal(layout::kMagicCookie.begin(), layout::kMagicCookie.end(),
                  packet.begin() + layout::kCookie)) {
    return error_at(Kind::BadCookie, layout::kCookie);
  }
  return std::nullopt;
}

void read_header(Bytes packet, Message& out) {
  out.op = static_cast<Op>(packet[layout::kOp]);
  out.htype = packet[layout::kHtype];
  out.hlen = packet[layout::kHlen];
  out.hops = packet[layout::kHops];
  out.xid = read_u32(packet, layout::kXid);
  out.secs = read_u16(packet, layout::kSecs);
  out.flags = read_u16(packet, layout::kFlags);
  out.ciaddr = Ipv4{read_u32(packet, layout::kCiaddr)};
  out.yiaddr = Ipv4{read_u32(packet, layout::kYiaddr)};
  out.siaddr = Ipv4{read_u32(packet, layout::kSiaddr)};
  out.giaddr = Ipv4{read_u32(packet, layout::kGiaddr)};
  std::copy_n(packet.begin() + layout::kChaddr, out.chaddr.size(), out.chaddr.begin());
  std::copy_n(packet.begin() + layout::kSname, out.sname.size(), out.sname.begin());
  std::copy_n(packet.begin() + layout::kFile, out.file.size(), out.file.begin());
}

}  // namespace

std::optional<ParseError> parse_into(Bytes packet, Message& out) {
  using Kind = ParseError::Kind;
  if (auto error = check_header(packet)) return error;
  read_header(packet, out);

  // Pass one over the options field finds option 52, which says which other fields to read.
  detail::OptionsAssembler assembler{out.options};
  std::uint8_t overload = 0;
  std::optional<std::size_t> message_type_offset;
  const Field options_field{layout::kOptions, packet.size(), false};
  auto size_main = [&](std::uint8_t code, Bytes value,
                       std::size_t offset) -> std::optional<ParseError> {
    if (code == option::kOverload) {
      const bool valid = overload == 0 && value.size() == 1 && value[0] >= 1 && value[0] <= 3;
      if (!valid) return error_at(Kind::BadOverload, offset);
      overload = value[0];
      return std::nullopt;
    }
    if (code == option::kMessageType && !message_type_offset) message_type_offset = offset;
    if (!assembler.count(code, value.size())) return error_at(Kind::TooManyOptionBytes, offset);
    return std::nullopt;
  };
  if (auto error = walk(packet, options_field, size_main)) return error;

  // RFC 2131 §4.1: the options field, then file, then sname.
  std::array<Field, 3> fields{options_field};
  std::size_t field_count = 1;
  if (overload & layout::kOverloadFile) {
    fields[field_count++] = {layout::kFile, layout::kFile + layout::kFileSize, true};
  }
  if (overload & layout::kOverloadSname) {
    fields[field_count++] = {layout::kSname, layout::kSname + layout::kSnameSize, true};
  }
  auto size_overloaded = [&](std::uint8_t code, Bytes value,
                             std::size_t offset) -> std::optional<ParseError> {
    if (code == option::kOverload) return error_at(Kind::BadOverload, offset);
    if (code == option::kMessageType && !message_type_offset) message_type_offset = offset;
    if (!assembler.count(code, value.size())) return error_at(Kind::TooManyOptionBytes, offset);
    return std::nullopt;
  };
  for (std::size_t i = 1; i < field_count; ++i) {
    if (auto error = walk(packet, fields[i], size_overloaded)) return error;
  }

  assembler.lay_out();
  auto copy = [&](std::uint8_t code, Bytes value, std::size_t) -> std::optional<ParseError> {
    if (code != option::kOverload) assembler.copy(code, value);
    return std::nullopt;
  };
  for (std::size_t i = 0; i < field_count; ++i) (void)walk(packet, fields[i], copy);

  if (!out.type()) {
    return error_at(Kind::MissingMessageType, message_type_offset.value_or(layout::kOptions));
  }
  // Overloaded fields carried options, not names: they were moved into `options`.
  if (overload & layout::kOverloadFile) out.file.fill(0);
  if (overload & layout::kOverloadSname) out.sname.fill(0);
  return std::nullopt;
}

Expected<Message, ParseError> parse(Bytes packet) {
  Message message;
  if (auto error = parse_into(packet, message)) return unexpected(*error);
  return message;
}

}  // namespace landlord::wire
