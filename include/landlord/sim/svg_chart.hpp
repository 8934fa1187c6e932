#pragma once
// Charts as inline SVG for the HTML report (--html): lines, stacked areas and bars, with shaded
// x ranges (fault windows) and vertical markers (T1, T2). Self-contained text, no script, no
// fonts or styles from outside: the file opens without a network.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace landlord::sim {

struct ChartSeries {
  std::string name;
  std::string colour;  // a CSS colour
  std::vector<double> x, y;  // same length
};

struct ChartBand {  // a shaded x range, e.g. a fault window
  double from = 0, to = 0;
  std::string label;
};

struct ChartMarker {  // a vertical line, e.g. T1
  double x = 0;
  std::string label;
};

enum class ChartKind { Lines, StackedArea, Bars };

struct Chart {
  std::string id;  // the svg element's id
  std::string title, x_label, y_label;
  ChartKind kind = ChartKind::Lines;
  bool log_x = false;  // positive x only
  std::optional<double> x_min, x_max, y_max;
  std::vector<ChartSeries> series;
  std::vector<ChartBand> bands;
  std::vector<ChartMarker> markers;
};

std::string render_svg(const Chart& chart);

// Text made safe for HTML/SVG content and attribute values.
std::string html_escaped(std::string_view text);

}  // namespace landlord::sim
