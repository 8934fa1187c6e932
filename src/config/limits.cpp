#include "limits.hpp"

#include <string>
#include <vector>

namespace landlord::config::detail {
namespace {

YAML::Mark mark_at(std::size_t position, int line, int column) {
  YAML::Mark mark;
  mark.pos = static_cast<int>(position);
  mark.line = line;
  mark.column = column;
  return mark;
}

// The nesting a line opens: its indentation against the block levels open above it, each "- "
// that starts a list item inside it, and the flow brackets left open. Quoted text and comments
// are skipped, so "[" inside a string does not count.
class NestingScan {
 public:
  // Returns the depth reached on this line.
  std::size_t line(std::string_view text) {
    std::size_t column = 0;
    while (column < text.size() && text[column] == ' ') ++column;
    if (column == text.size() || text[column] == '#') return depth();  // blank or comment
    if (flow_ == 0) {
      while (!indents_.empty() && indents_.back() >= column) indents_.pop_back();
      indents_.push_back(column);
      // "- - x": each dash opens one more level, indented past the previous one.
      while (column + 1 < text.size() && text[column] == '-' && text[column + 1] == ' ') {
        column += 2;
        while (column < text.size() && text[column] == ' ') ++column;
        indents_.push_back(column);
      }
    }
    char quote = 0;
    for (std::size_t i = column; i < text.size(); ++i) {
      const char c = text[i];
      if (quote != 0) {
        if (c == quote) quote = 0;
        continue;
      }
      if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '#' && (i == 0 || text[i - 1] == ' ')) {
        break;
      } else if (c == '[' || c == '{') {
        ++flow_;
        deepest_flow_ = std::max(deepest_flow_, flow_);
      } else if ((c == ']' || c == '}') && flow_ > 0) {
        --flow_;
      }
    }
    const std::size_t reached = indents_.size() + deepest_flow_;
    deepest_flow_ = flow_;
    return reached;
  }

 private:
  std::size_t depth() const { return indents_.size() + flow_; }
  std::vector<std::size_t> indents_;
  std::size_t flow_ = 0;
  std::size_t deepest_flow_ = 0;
};

}  // namespace

bool check_text(Reader& reader, std::string_view yaml) {
  bool usable = true;
  NestingScan nesting;
  int line_number = 0;
  for (std::size_t start = 0; start < yaml.size(); ++line_number) {
    const std::size_t end = std::min(yaml.find('\n', start), yaml.size());
    const std::string_view line = yaml.substr(start, end - start);
    const std::size_t indent_end = line.find_first_not_of(" \t");
    const std::string_view indent = line.substr(0, std::min(indent_end, line.size()));
    if (const auto tab = indent.find('\t'); tab != std::string_view::npos &&
                                            indent_end != std::string_view::npos) {
      reader.error(mark_at(start + tab, line_number, static_cast<int>(tab)),
                   "a tab in the indentation: YAML indents with spaces only (a tab's width is "
                   "not defined); replace it with spaces");
      usable = false;
    }
    if (nesting.line(line) > kMaxNesting) {
      reader.error(mark_at(start, line_number, 0),
                   "nested deeper than " + std::to_string(kMaxNesting) +
                       " levels of maps and lists; a landlord config needs 6 at most");
      return false;  // the parser must not see it, and every later line would say the same
    }
    start = end + 1;
  }
  return usable;
}

}  // namespace landlord::config::detail
