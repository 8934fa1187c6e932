#include "landlord/migrate/lease_file.hpp"

#include <array>
#include <sstream>

#include "format_reader.hpp"

namespace landlord::migrate {

std::optional<Format> parse_format(std::string_view name) {
  if (name == "kea-csv") return Format::KeaCsv;
  if (name == "dhcpd") return Format::Dhcpd;
  if (name == "dnsmasq") return Format::Dnsmasq;
  return std::nullopt;
}

std::string_view to_string(Format format) {
  switch (format) {
    case Format::KeaCsv: return "kea-csv";
    case Format::Dhcpd: return "dhcpd";
    case Format::Dnsmasq: return "dnsmasq";
  }
  return "?";
}

bool is_journal(Format format) { return format != Format::Dnsmasq; }

void read_lease_stream(Format format, std::istream& input, LeaseVisitor& visitor) {
  std::unique_ptr<FormatReader> reader;
  switch (format) {
    case Format::KeaCsv: reader = kea_csv_reader(visitor); break;
    case Format::Dhcpd: reader = dhcpd_reader(visitor); break;
    case Format::Dnsmasq: reader = dnsmasq_reader(visitor); break;
  }
  // Blocks in, lines out: `line` never grows past kMaxLineBytes; the rest of a longer line is
  // skipped up to its '\n'.
  std::array<char, 64 * 1024> block{};
  std::string line;
  bool overlong = false;
  int number = 1;
  const auto finish_line = [&] {
    if (overlong) {
      reader->overlong(number);
    } else {
      reader->line(number, line);
    }
    line.clear();
    overlong = false;
    ++number;
  };
  while (input) {
    input.read(block.data(), static_cast<std::streamsize>(block.size()));
    const std::string_view got{block.data(), static_cast<std::size_t>(input.gcount())};
    std::size_t start = 0;
    while (start < got.size()) {
      const std::size_t newline = got.find('\n', start);
      const std::string_view piece = got.substr(start, newline == std::string_view::npos ? got.npos : newline - start);
      if (!overlong && line.size() + piece.size() > kMaxLineBytes) {
        overlong = true;
        line.clear();
      }
      if (!overlong) line += piece;
      if (newline == std::string_view::npos) break;
      finish_line();
      start = newline + 1;
    }
  }
  if (!line.empty() || overlong) finish_line();  // a last line without '\n'
  reader->end();
}

namespace {

class Collector final : public LeaseVisitor {
 public:
  explicit Collector(LeaseFile& file) : file_(file) {}
  void lease(ForeignLease&& lease) override { file_.leases.push_back(std::move(lease)); }
  void failure(LineFailure&& failure) override { file_.failures.push_back(std::move(failure)); }
  void ignored() override { ++file_.ignored; }

 private:
  LeaseFile& file_;
};

}  // namespace

LeaseFile read_lease_file(Format format, std::string_view text) {
  LeaseFile file;
  file.journal = is_journal(format);
  Collector collector{file};
  std::istringstream input{std::string{text}};
  read_lease_stream(format, input, collector);
  return file;
}

LeaseFile read_kea_csv(std::string_view text) { return read_lease_file(Format::KeaCsv, text); }
LeaseFile read_dhcpd_leases(std::string_view text) { return read_lease_file(Format::Dhcpd, text); }
LeaseFile read_dnsmasq_leases(std::string_view text) { return read_lease_file(Format::Dnsmasq, text); }

}  // namespace landlord::migrate
