// The import's report: counts on stdout, the lines not used on stderr with where and why.
#include <algorithm>

#include <fmt/format.h>

#include "landlord/migrate/import_plan.hpp"

namespace landlord::migrate {
namespace {

std::string where(std::string_view file_name, int line) {
  return line > 0 ? fmt::format("{}:{}", file_name, line) : std::string{file_name};
}

std::string listed(const std::vector<const Skipped*>& lists, std::string_view file_name, std::size_t limit) {
  std::vector<const LineFailure*> entries;
  std::size_t total = 0;
  for (const Skipped* list : lists) {
    total += list->count;
    for (const LineFailure& entry : list->examples) entries.push_back(&entry);
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const LineFailure* a, const LineFailure* b) { return a->line < b->line; });
  std::string text;
  for (std::size_t i = 0; i < entries.size() && i < limit; ++i) {
    text += fmt::format("{}: {}\n", where(file_name, entries[i]->line), entries[i]->reason);
  }
  const std::size_t shown = std::min(entries.size(), limit);
  if (total > shown) text += fmt::format("{}: ... and {} more (counted in the report)\n", file_name, total - shown);
  return text;
}

}  // namespace

std::string describe(const ImportPlan& plan, std::size_t examples) {
  std::string text = fmt::format("leases to import: {}\n", plan.records.size());
  text += fmt::format("live leases in the file: {} (of {} entries read)\n", plan.live, plan.leases_read);
  if (plan.superseded > 0) text += fmt::format("older journal entries replaced by later ones: {}\n", plan.superseded);
  if (plan.ignored > 0) text += fmt::format("entries of no concern (IPv6, host blocks): {}\n", plan.ignored);
  const auto list = [&](const Skipped& skipped) {
    if (skipped.count == 0) return;
    text += fmt::format("{}: {}\n", skipped.reason, skipped.count);
    for (std::size_t i = 0; i < skipped.examples.size() && i < examples; ++i) {
      const LineFailure& entry = skipped.examples[i];
      text += fmt::format("  line {}: {}  ({})\n", entry.line, entry.text, entry.reason);
    }
    if (skipped.count > examples) text += fmt::format("  ... and {} more\n", skipped.count - std::min(examples, skipped.count));
  };
  for (const Skipped* skipped : {&plan.expired, &plan.inactive, &plan.duplicates, &plan.cut_to_max,
                                 &plan.raised_to_min, &plan.infinite, &plan.hostname_dropped}) {
    list(*skipped);
  }
  for (const Skipped* problem : {&plan.failures, &plan.outside, &plan.refused}) {
    if (problem->count > 0) text += fmt::format("{}: {} (on stderr)\n", problem->reason, problem->count);
  }
  return text;
}

std::string problems(const ImportPlan& plan, std::string_view file_name, std::size_t limit) {
  return listed({&plan.failures, &plan.outside, &plan.refused}, file_name, limit);
}

std::string problems(const Skipped& failures, std::string_view file_name, std::size_t limit) {
  return listed({&failures}, file_name, limit);
}

}  // namespace landlord::migrate
