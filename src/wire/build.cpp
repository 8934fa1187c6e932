// Building a message into a caller-sized buffer. The buffer's size is the limit (option 57, MTU):
// every write is checked against it. When the options do not fit the options field, the empty
// `file` then `sname` fields carry the rest (option 52), and what fits nowhere is left out.
#include <algorithm>
#include <cstring>

#include "landlord/base/big_endian.hpp"
#include "landlord/wire/message.hpp"
#include "layout.hpp"

namespace landlord::wire {

namespace {

using Bytes = std::span<const std::uint8_t>;
using Out = std::span<std::uint8_t>;

// Bytes an option takes on the wire, split into instances of at most 255 bytes (RFC 3396).
std::size_t encoded_size(std::size_t length) {
  if (length == 0) return 2;
  const std::size_t instances = (length + layout::kMaxInstanceLength - 1) / layout::kMaxInstanceLength;
  return length + 2 * instances;
}

// Writes one instance; the caller has checked that it fits.
std::size_t write_instance(Out out, std::size_t at, std::uint8_t code, Bytes value) {
  LANDLORD_ASSERT(value.size() <= layout::kMaxInstanceLength && at + 2 + value.size() <= out.size());
  out[at] = code;
  out[at + 1] = static_cast<std::uint8_t>(value.size());
  if (!value.empty()) std::memcpy(out.data() + at + 2, value.data(), value.size());
  return at + 2 + value.size();
}

// Writes every instance of an option back to back; the caller has checked that it fits.
std::size_t write_option(Out out, std::size_t at, std::uint8_t code, Bytes value) {
  do {
    const std::size_t chunk = std::min(value.size(), layout::kMaxInstanceLength);
    at = write_instance(out, at, code, value.first(chunk));
    value = value.subspan(chunk);
  } while (!value.empty());
  return at;
}

void write_u16(Out out, std::size_t at, std::uint16_t value) { store_be16(&out[at], value); }

void write_u32(Out out, std::size_t at, std::uint32_t value) { store_be32(&out[at], value); }

void write_header(const Message& message, Out out) {
  out[layout::kOp] = static_cast<std::uint8_t>(message.op);
  out[layout::kHtype] = message.htype;
  out[layout::kHlen] = message.hlen;
  out[layout::kHops] = message.hops;
  write_u32(out, layout::kXid, message.xid);
  write_u16(out, layout::kSecs, message.secs);
  write_u16(out, layout::kFlags, message.flags);
  write_u32(out, layout::kCiaddr, message.ciaddr.to_uint());
  write_u32(out, layout::kYiaddr, message.yiaddr.to_uint());
  write_u32(out, layout::kSiaddr, message.siaddr.to_uint());
  write_u32(out, layout::kGiaddr, message.giaddr.to_uint());
  std::copy(message.chaddr.begin(), message.chaddr.end(), out.begin() + layout::kChaddr);
  std::copy(message.sname.begin(), message.sname.end(), out.begin() + layout::kSname);
  std::copy(message.file.begin(), message.file.end(), out.begin() + layout::kFile);
  std::copy(layout::kMagicCookie.begin(), layout::kMagicCookie.end(), out.begin() + layout::kCookie);
}

// Options written by build itself or last, not in the stored order.
bool placed_apart(std::uint8_t code) {
  return code == option::kOverload || code == option::kRelayAgentInfo;
}

template <std::size_t N>
bool all_zero(const std::array<std::uint8_t, N>& field) {
  return std::all_of(field.begin(), field.end(), [](std::uint8_t byte) { return byte == 0; });
}

// Fills the options field, then file, then sname, never going back to an earlier field so the
// receiver reads the options in their stored order. An option of up to 255 bytes goes whole into
// one field when one has room (receivers without RFC 3396 support still read it); a longer one,
// or one that fits no field whole, is split into instances that continue in the next field
// (RFC 3396: the receiver concatenates them in options, file, sname order).
class Placer {
 public:
  struct Area {
    std::size_t cursor;
    std::size_t end;  // one before the field's END byte
    std::uint8_t overload_bit;
  };

  Placer(Out out, Area main) : out_(out) { areas_[count_++] = main; }
  void add(Area area) { areas_[count_++] = area; }

  bool place(std::uint8_t code, Bytes value) {
    if (value.size() <= layout::kMaxInstanceLength && place_whole(code, value)) return true;
    // RFC 3396 §6: an option that fits no field whole is split into instances across the
    // fields rather than left out; the receiver joins them in options, file, sname order.
    // A zero-length option has nothing to split: it fits whole or not at all.
    if (value.empty() || !fits_split(value.size())) return false;
    while (!value.empty()) {
      if (room(current_) < 3) {
        ++current_;
        continue;
      }
      const std::size_t chunk = std::min({room(current_) - 2, layout::kMaxInstanceLength, value.size()});
      write_to_current(code, value.first(chunk));
      value = value.subspan(chunk);
    }
    return true;
  }

  // Writes END in each field used and returns the option 52 bits of the fields used.
  std::uint8_t finish() {
    std::uint8_t bits = 0;
    for (std::size_t i = 1; i < count_; ++i) {
      if (!used_[i]) continue;
      out_[areas_[i].cursor] = option::kEnd;
      bits |= areas_[i].overload_bit;
    }
    return bits;
  }

  std::size_t main_cursor() const { return areas_[0].cursor; }

 private:
  std::size_t room(std::size_t area) const { return areas_[area].end - areas_[area].cursor; }

  bool place_whole(std::uint8_t code, Bytes value) {
    for (std::size_t area = current_; area < count_; ++area) {
      if (room(area) >= 2 + value.size()) {
        current_ = area;
        write_to_current(code, value);
        return true;
      }
    }
    return false;
  }

  bool fits_split(std::size_t length) const {
    std::size_t area = current_;
    std::size_t left = room(area);
    while (length > 0) {
      if (left >= 3) {
        const std::size_t chunk = std::min({left - 2, layout::kMaxInstanceLength, length});
        left -= 2 + chunk;
        length -= chunk;
      } else {
        if (++area == count_) return false;
        left = room(area);
      }
    }
    return true;
  }

  void write_to_current(std::uint8_t code, Bytes value) {
    Area& area = areas_[current_];
    LANDLORD_ASSERT(area.cursor + 2 + value.size() <= area.end);
    area.cursor = write_instance(out_, area.cursor, code, value);
    used_[current_] = true;
  }

  Out out_;
  std::array<Area, 3> areas_{};
  std::array<bool, 3> used_{};
  std::size_t count_ = 0;
  std::size_t current_ = 0;
};

// Everything fits the options field: all options in their stored order, 82 last.
std::size_t build_in_order(const Message& message, Out out) {
  const Options& options = message.options;
  std::size_t at = layout::kOptions;
  for (const std::uint8_t code : options.codes()) {
    if (!placed_apart(code)) at = write_option(out, at, code, options.get(code));
  }
  if (options.has(option::kRelayAgentInfo)) {
    at = write_option(out, at, option::kRelayAgentInfo, options.get(option::kRelayAgentInfo));
  }
  out[at++] = option::kEnd;
  return at;
}

struct Overloaded {
  std::size_t end;  // one past the options field's END
  std::size_t omitted;
  std::uint8_t overload;
};

// Not everything fits the options field. 52 and 53 go first (53 must not be lost to
// overloading), 82 is reserved its place before END, the rest are placed in order.
Overloaded build_overloaded(const Message& message, Out out, bool overload_allowed) {
  const Options& options = message.options;
  std::size_t omitted = 0;
  std::size_t at = layout::kOptions;
  const std::size_t overload_at = at;
  if (overload_allowed) at += 3;
  if (options.has(option::kMessageType)) {
    at = write_option(out, at, option::kMessageType, options.get(option::kMessageType));
  }

  std::size_t main_end = out.size() - 1;  // room for END
  const bool has_relay_info = options.has(option::kRelayAgentInfo);
  const std::size_t relay_info_size =
      has_relay_info ? encoded_size(options.get(option::kRelayAgentInfo).size()) : 0;
  bool relay_info_fits = has_relay_info && main_end >= at && main_end - at >= relay_info_size;
  if (relay_info_fits) {
    main_end -= relay_info_size;
  } else if (has_relay_info) {
    ++omitted;
  }

  Placer placer{out, {at, std::max(at, main_end), 0}};
  if (overload_allowed && all_zero(message.file)) {
    placer.add({layout::kFile, layout::kFile + layout::kFileSize - 1, layout::kOverloadFile});
  }
  if (overload_allowed && all_zero(message.sname)) {
    placer.add({layout::kSname, layout::kSname + layout::kSnameSize - 1, layout::kOverloadSname});
  }
  for (const std::uint8_t code : options.codes()) {
    if (placed_apart(code) || code == option::kMessageType) continue;
    if (!placer.place(code, options.get(code))) ++omitted;
  }
  const std::uint8_t overload = placer.finish();

  at = placer.main_cursor();
  if (relay_info_fits) {
    at = write_option(out, at, option::kRelayAgentInfo, options.get(option::kRelayAgentInfo));
  }
  out[at++] = option::kEnd;

  if (overload != 0) {
    write_instance(out, overload_at, option::kOverload, Bytes{&overload, 1});
  } else if (overload_allowed) {
    // Nothing went to file or sname after all: close the gap kept for option 52.
    std::memmove(out.data() + overload_at, out.data() + overload_at + 3, at - overload_at - 3);
    at -= 3;
  }
  return {at, omitted, overload};
}

}  // namespace

Expected<BuildResult, BuildError> build(const Message& message, Out out) {
  if (out.size() < layout::kOptions + 1) return unexpected(BuildError{BuildError::Kind::BufferTooSmall});
  write_header(message, out);

  const Options& options = message.options;
  std::size_t options_size = 1;  // END
  for (const std::uint8_t code : options.codes()) {
    if (code != option::kOverload) options_size += encoded_size(options.get(code).size());
  }

  BuildResult result;
  std::size_t end = 0;
  if (layout::kOptions + options_size <= out.size()) {
    end = build_in_order(message, out);
  } else {
    const std::size_t type_size =
        options.has(option::kMessageType) ? encoded_size(options.get(option::kMessageType).size()) : 0;
    const std::size_t room = out.size() - layout::kOptions - 1;  // after END
    if (type_size > room) return unexpected(BuildError{BuildError::Kind::MessageTypeDoesNotFit});
    const bool fields_free = all_zero(message.file) || all_zero(message.sname);
    const Overloaded built = build_overloaded(message, out, fields_free && type_size + 3 <= room);
    end = built.end;
    result.omitted = built.omitted;
    result.overload = built.overload;
  }

  // Short messages are padded to the BOOTP minimum, which some relays and clients still expect.
  result.size = std::max(end, std::min(kMinMessageSize, out.size()));
  std::fill(out.begin() + static_cast<std::ptrdiff_t>(end),
            out.begin() + static_cast<std::ptrdiff_t>(result.size), std::uint8_t{0});
  return result;
}

}  // namespace landlord::wire
