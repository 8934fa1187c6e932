// The daemon's log lines: ISO 8601 timestamps with the time zone on a plain stderr; syslog
// priority prefixes and no timestamp when stderr is the journal (JOURNAL_STREAM names it).
#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <cctype>
#include <cstring>
#include <sstream>

#include <gtest/gtest.h>

#include "daemon_harness.hpp"

namespace {

using namespace std::chrono_literals;
using landlord::test::Daemon;
using landlord::test::WorkDirectory;

std::string journal_stream_of(const std::filesystem::path& file) {
  std::ofstream{file};  // the daemon's stderr is this inode (opened with O_TRUNC, same inode)
  struct stat status {};
  if (::stat(file.c_str(), &status) != 0) std::abort();
  return "JOURNAL_STREAM=" + std::to_string(status.st_dev) + ":" + std::to_string(status.st_ino);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream{text};
  for (std::string line; std::getline(stream, line);) {
    if (line.find("AddressSanitizer") == std::string::npos) lines.push_back(line);
  }
  return lines;
}

// Runs a daemon until it serves, then stops it; returns its log.
std::string serve_and_stop(const WorkDirectory& work, std::vector<std::string> environment) {
  const auto config = landlord::test::write_loopback_config(work.path(), landlord::test::free_udp_port());
  const auto log = work.path() / "landlord.log";
  if (environment.empty()) environment.push_back("JOURNAL_STREAM=");
  if (environment.front() == "journal") environment.front() = journal_stream_of(log);
  Daemon daemon{{"--allow-root", "--config", config.string()}, environment, log};
  EXPECT_TRUE(daemon.wait_for_log("serving on", 30s)) << daemon.log();
  daemon.signal(SIGTERM);
  EXPECT_EQ(daemon.wait(15s), 0) << daemon.log();
  return daemon.log();
}

// "YYYY-MM-DDTHH:MM:SS.mmm+HH:MM" at `at` (std::regex trips GCC 12's -Wmaybe-uninitialized).
bool iso_timestamp_at(const std::string& line, std::size_t at) {
  constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:dd.ddd+dd:dd";
  if (line.size() < at + kShape.size()) return false;
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    const char c = line[at + i];
    const bool fits = kShape[i] == 'd' ? std::isdigit(static_cast<unsigned char>(c)) != 0
                      : kShape[i] == '+' ? (c == '+' || c == '-')
                                         : c == kShape[i];
    if (!fits) return false;
  }
  return true;
}

// "2026-12-01T21:40:00.123+00:00 info serving on ..."
bool timestamped(const std::string& line) {
  if (!iso_timestamp_at(line, 0)) return false;
  for (const char* level : {" info ", " warning ", " error ", " critical ", " debug "}) {
    if (line.compare(29, std::strlen(level), level) == 0 && line.size() > 29 + std::strlen(level)) return true;
  }
  return false;
}

bool has_timestamp(const std::string& line) {
  for (std::size_t at = 0; at < line.size(); ++at) {
    if (iso_timestamp_at(line, at)) return true;
  }
  return false;
}

// "<6>serving on ...": a syslog priority 0-7, then the message.
bool syslog_prefixed(const std::string& line) {
  return line.size() > 3 && line[0] == '<' && line[1] >= '0' && line[1] <= '7' && line[2] == '>' &&
         line[3] != ' ';
}

TEST(Logging, IsoTimestampsWithTimeZoneOnAPlainStderr) {
  WorkDirectory work{"log-plain"};
  const auto lines = lines_of(serve_and_stop(work, {}));
  ASSERT_FALSE(lines.empty());
  for (const auto& line : lines) EXPECT_TRUE(timestamped(line)) << line;
}

TEST(Logging, SyslogPrioritiesAndNoTimestampOnTheJournal) {
  WorkDirectory work{"log-journal"};
  const auto lines = lines_of(serve_and_stop(work, {"journal"}));
  ASSERT_FALSE(lines.empty());
  bool serving = false;
  for (const auto& line : lines) {
    EXPECT_TRUE(syslog_prefixed(line)) << line;
    EXPECT_FALSE(has_timestamp(line)) << line;
    if (line.starts_with("<6>serving on 127.0.0.1:")) serving = true;
  }
  EXPECT_TRUE(serving) << "no '<6>serving on' line";
}

TEST(Logging, ACriticalLineIsPriorityTwo) {
  WorkDirectory work{"log-critical"};
  const auto config = landlord::test::write_loopback_config(work.path(), landlord::test::free_udp_port());
  const auto log = work.path() / "landlord.log";
  Daemon daemon{{"--allow-root", "--config", config.string(), "--store-path", "/nonexistent/dir/leases.db"},
                {journal_stream_of(log)}, log};
  EXPECT_EQ(daemon.wait(30s), 1) << daemon.log();
  EXPECT_NE(daemon.log().find("<2>cannot open the lease store"), std::string::npos) << daemon.log();
}

TEST(Logging, AJournalStreamThatIsNotStderrIsIgnored) {
  WorkDirectory work{"log-elsewhere"};
  const auto lines = lines_of(serve_and_stop(work, {"JOURNAL_STREAM=1:1"}));
  ASSERT_FALSE(lines.empty());
  for (const auto& line : lines) EXPECT_TRUE(timestamped(line)) << line;
}

}  // namespace
