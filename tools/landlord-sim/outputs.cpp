#include "outputs.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "landlord/sim/html_report.hpp"

namespace landlord::sim::cli {

namespace {

Expected<void, std::string> open_file(const std::string& path, const char* flag,
                                      std::ofstream& file) {
  if (path.empty()) return {};
  file.open(path, std::ios::trunc);
  if (!file) {
    return unexpected(fmt::format("{}: cannot write {}: {}", flag, path, std::strerror(errno)));
  }
  return {};
}

Expected<void, std::string> close_file(const std::string& path, std::ofstream& file) {
  if (!file.is_open()) return {};
  file.close();
  if (!file) return unexpected(fmt::format("cannot write {}", path));
  return {};
}

}  // namespace

Expected<std::unique_ptr<Outputs>, std::string> Outputs::open(const Settings& settings) {
  std::unique_ptr<Outputs> outputs(new Outputs());
  outputs->report_path_ = settings.report_path;
  outputs->timeline_path_ = settings.timeline_path;
  outputs->html_path_ = settings.html_path;
  if (auto opened = open_file(settings.report_path, "--report", outputs->report_file_); !opened) {
    return unexpected(opened.error());
  }
  if (auto opened = open_file(settings.timeline_path, "--timeline", outputs->timeline_file_);
      !opened) {
    return unexpected(opened.error());
  }
  if (auto opened = open_file(settings.html_path, "--html", outputs->html_file_); !opened) {
    return unexpected(opened.error());
  }
  outputs->timeline_on_stdout_ = settings.stats_every_given && settings.timeline_path.empty();
  if (outputs->timeline_file_.is_open()) outputs->timeline_file_ << timeline_csv_header();
  if (outputs->timeline_on_stdout_) std::fputs(timeline_csv_header().c_str(), stdout);
  return outputs;
}

void Outputs::write_sample(const TimelineSample& sample) {
  const std::string line = timeline_csv_line(sample);
  if (timeline_file_.is_open()) timeline_file_ << line << std::flush;
  if (timeline_on_stdout_) {
    std::fputs(line.c_str(), stdout);
    std::fflush(stdout);
  }
}

Expected<void, std::string> Outputs::finish(const Fleet& fleet, const RunInfo& info,
                                            const Timeline* timeline) {
  if (report_file_.is_open()) report_file_ << report_json(fleet, info);
  if (auto closed = close_file(report_path_, report_file_); !closed) return closed;
  if (auto closed = close_file(timeline_path_, timeline_file_); !closed) return closed;
  if (html_file_.is_open() && timeline) html_file_ << report_html(fleet, info, *timeline);
  return close_file(html_path_, html_file_);
}

}  // namespace landlord::sim::cli
