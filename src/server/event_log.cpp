#include "event_log.hpp"

#include <chrono>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace landlord::server {
namespace {

bool is_lease_event(engine::EventKind kind) {
  using engine::EventKind;
  switch (kind) {
    case EventKind::Grant:
    case EventKind::Renew:
    case EventKind::Rebind:
    case EventKind::Release:
    case EventKind::Decline:
    case EventKind::Expire:
    case EventKind::Nak: return true;
    default: return false;
  }
}

long long seconds(Duration duration) {
  return std::chrono::duration_cast<std::chrono::seconds>(duration).count();
}

// One line per lease event at packet rate: written straight into a stack buffer, no
// temporary strings (an address's or a MAC's to_string() allocates).
using Line = fmt::memory_buffer;

void append(Line& line, std::string_view text) { line.append(text.data(), text.data() + text.size()); }

void append(Line& line, std::uint64_t number) {
  const fmt::format_int digits{number};
  line.append(digits.data(), digits.data() + digits.size());
}

void append(Line& line, Ipv4 address) {
  const std::uint32_t value = address.to_uint();
  for (int shift = 24; shift >= 0; shift -= 8) {
    append(line, std::uint64_t{(value >> shift) & 0xff});
    if (shift > 0) line.push_back('.');
  }
}

void append_hex(Line& line, std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (std::size_t index = 0; index < bytes.size(); ++index) {
    if (index > 0) line.push_back(':');
    line.push_back(kDigits[bytes[index] >> 4]);
    line.push_back(kDigits[bytes[index] & 0xf]);
  }
}

void append_identity(Line& line, const HardwareAddress& hardware, const ClientId& client_id) {
  append(line, " client ");
  append_hex(line, hardware.bytes());
  if (!client_id.empty()) {
    append(line, " id ");
    append_hex(line, client_id.bytes());
  }
}

void write(spdlog::level::level_enum level, const Line& line) {
  spdlog::default_logger_raw()->log(level, spdlog::string_view_t{line.data(), line.size()});
}

}  // namespace

void log_lease_event(const engine::Event& event, const Requester& requester, Duration lease_time,
                     std::string_view link_name) {
  const auto level = is_lease_event(event.kind) ? spdlog::level::info : spdlog::level::debug;
  if (!spdlog::should_log(level)) return;
  Line line;
  append(line, engine::to_string(event.kind));
  line.push_back(' ');
  append(line, event.address);
  append_identity(line, requester.hardware, requester.client_id);
  const bool nak_like =
      event.kind == engine::EventKind::Nak || event.kind == engine::EventKind::Ignore;
  const bool timed = !nak_like && lease_time.count() > 0 &&
                     (event.kind == engine::EventKind::Grant ||
                      event.kind == engine::EventKind::Renew ||
                      event.kind == engine::EventKind::Rebind);
  if (timed) {
    append(line, " lease ");
    append(line, static_cast<std::uint64_t>(seconds(lease_time)));
    line.push_back('s');
  }
  append(line, " via ");
  if (requester.giaddr.is_zero()) {
    append(line, link_name);
  } else {
    append(line, "relay ");
    append(line, requester.giaddr);
  }
  if (nak_like || (!timed && !event.reason.empty())) {
    append(line, ": ");
    append(line, event.reason);
  }
  if (event.kind == engine::EventKind::Decline && lease_time.count() > 0) {
    append(line, "; out of the pool for ");  // the decline hold
    append(line, static_cast<std::uint64_t>(seconds(lease_time)));
    line.push_back('s');
  }
  write(level, line);
}

void log_reclaimed(const lease::Lease& record) {
  if (!spdlog::should_log(spdlog::level::info)) return;
  Line line;
  if (record.client.empty()) {  // a decline hold ran out: the address is free again
    append(line, "decline hold on ");
    append(line, record.address);
    append(line, " ended; the address is free");
  } else {
    append(line, "expire ");
    append(line, record.address);
    append_identity(line, record.hardware, record.client_id);
    append(line, " (lease ");
    append(line, static_cast<std::uint64_t>(seconds(record.lease_time)));
    append(line, "s)");
  }
  write(spdlog::level::info, line);
}

}  // namespace landlord::server
