#pragma once
// One reader per file format, fed a line at a time by read_lease_stream (lease_file.cpp), which
// never holds more than one line: a reader keeps only what one entry needs.
#include <memory>
#include <string_view>

#include "landlord/migrate/lease_file.hpp"
#include "text_lines.hpp"

namespace landlord::migrate {

class FormatReader {
 public:
  explicit FormatReader(LeaseVisitor& out) : out_(out) {}
  virtual ~FormatReader() = default;
  FormatReader(const FormatReader&) = delete;
  FormatReader& operator=(const FormatReader&) = delete;

  // Line `number` (from 1), without its '\n'.
  virtual void line(int number, std::string_view text) = 0;
  // A line longer than kMaxLineBytes, not kept: a failure, and whatever it was part of is lost.
  virtual void overlong(int number) {
    fail(number, {}, "line longer than " + std::to_string(kMaxLineBytes) + " bytes");
  }
  virtual void end() {}

 protected:
  void fail(int number, std::string_view text, std::string reason) {
    out_.failure({number, shown(text, kMaxShownBytes), std::move(reason)});
  }
  LeaseVisitor& out_;
};

std::unique_ptr<FormatReader> kea_csv_reader(LeaseVisitor& out);
std::unique_ptr<FormatReader> dhcpd_reader(LeaseVisitor& out);
std::unique_ptr<FormatReader> dnsmasq_reader(LeaseVisitor& out);

}  // namespace landlord::migrate
