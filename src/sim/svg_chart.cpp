#include "landlord/sim/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace landlord::sim {

namespace {

constexpr double kWidth = 900, kHeight = 300;
constexpr double kLeft = 70, kRight = 20, kTop = 36, kBottom = 46;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;

// 1, 2 or 5 times a power of ten, at least `rough`: axis steps people read easily.
double nice_step(double rough) {
  if (!(rough > 0)) return 1;
  const double power = std::pow(10, std::floor(std::log10(rough)));
  for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
    if (factor * power >= rough) return factor * power;
  }
  return 10 * power;
}

std::string number(double value) {
  if (value == 0) return "0";
  const double magnitude = std::abs(value);
  if (magnitude >= 1e6) return fmt::format("{:.3g}M", value / 1e6);
  if (magnitude >= 1e4) return fmt::format("{:.3g}k", value / 1e3);
  if (magnitude >= 100) return fmt::format("{:.0f}", value);
  if (magnitude >= 1) return fmt::format("{:.3g}", value);
  return fmt::format("{:.2g}", value);
}

struct Scale {
  double x_min, x_max, y_max;
  bool log_x;
  double x(double value) const {
    if (log_x) {
      const double low = std::log10(x_min), high = std::log10(x_max);
      const double at = std::log10(std::max(value, x_min));
      return kLeft + (high > low ? (at - low) / (high - low) : 0) * kPlotWidth;
    }
    return kLeft + (x_max > x_min ? (value - x_min) / (x_max - x_min) : 0) * kPlotWidth;
  }
  double y(double value) const {
    return kTop + kPlotHeight - (y_max > 0 ? std::clamp(value / y_max, 0.0, 1.0) : 0) * kPlotHeight;
  }
};

Scale scale_of(const Chart& chart) {
  double x_min = INFINITY, x_max = -INFINITY, y_max = 0;
  std::vector<double> stacked;
  for (const ChartSeries& s : chart.series) {
    if (chart.kind == ChartKind::StackedArea && stacked.size() < s.y.size()) {
      stacked.resize(s.y.size(), 0);
    }
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (chart.log_x && !(s.x[i] > 0)) continue;
      x_min = std::min(x_min, s.x[i]);
      x_max = std::max(x_max, s.x[i]);
      if (!std::isfinite(s.y[i])) continue;
      if (chart.kind == ChartKind::StackedArea) {
        stacked[i] += s.y[i];
        y_max = std::max(y_max, stacked[i]);
      } else {
        y_max = std::max(y_max, s.y[i]);
      }
    }
  }
  if (!std::isfinite(x_min)) x_min = chart.log_x ? 1 : 0, x_max = x_min + 1;
  if (chart.x_min) x_min = *chart.x_min;
  if (chart.x_max) x_max = *chart.x_max;
  if (x_max <= x_min) x_max = x_min + (chart.log_x ? x_min * 10 : 1);
  if (chart.y_max) y_max = *chart.y_max;
  const double step = nice_step(y_max / 5);
  y_max = y_max > 0 ? std::ceil(y_max / step) * step : 1;
  return {x_min, x_max, y_max, chart.log_x};
}

std::string axes(const Chart& chart, const Scale& scale) {
  std::string out;
  const double y_step = nice_step(scale.y_max / 5);
  for (double v = 0; v <= scale.y_max + y_step / 2; v += y_step) {
    const double y = scale.y(v);
    out += fmt::format(R"(<line class="grid" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>)",
                       kLeft, y, kLeft + kPlotWidth, y);
    out += fmt::format(R"(<text class="tick" x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)",
                       kLeft - 6, y + 4, number(v));
  }
  std::vector<double> x_ticks;
  if (scale.log_x) {
    for (double decade = std::pow(10, std::floor(std::log10(scale.x_min)));
         decade <= scale.x_max * 1.001; decade *= 10) {
      for (const double factor : {1.0, 2.0, 5.0}) {
        const double v = decade * factor;
        if (v >= scale.x_min * 0.999 && v <= scale.x_max * 1.001) x_ticks.push_back(v);
      }
    }
  } else {
    const double x_step = nice_step((scale.x_max - scale.x_min) / 8);
    for (double v = std::ceil(scale.x_min / x_step) * x_step; v <= scale.x_max + x_step / 1000;
         v += x_step) {
      x_ticks.push_back(v);
    }
  }
  for (const double v : x_ticks) {
    const double x = scale.x(v);
    out += fmt::format(R"(<line class="axis" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>)",
                       x, kTop + kPlotHeight, x, kTop + kPlotHeight + 4);
    out += fmt::format(R"(<text class="tick" x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)",
                       x, kTop + kPlotHeight + 16, number(v));
  }
  out += fmt::format(R"(<line class="axis" x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}"/>)",
                     kLeft, kTop + kPlotHeight, kLeft + kPlotWidth);
  out += fmt::format(R"(<line class="axis" x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}"/>)",
                     kLeft, kTop, kTop + kPlotHeight);
  out += fmt::format(R"(<text class="label" x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)",
                     kLeft + kPlotWidth / 2, kHeight - 8, html_escaped(chart.x_label));
  out += fmt::format(
      R"svg(<text class="label" x="14" y="{0:.1f}" text-anchor="middle" transform="rotate(-90 14 {0:.1f})">{1}</text>)svg",
      kTop + kPlotHeight / 2, html_escaped(chart.y_label));
  out += fmt::format(R"(<text class="title" x="{:.1f}" y="20">{}</text>)", kLeft,
                     html_escaped(chart.title));
  return out;
}

std::string bands_and_markers(const Chart& chart, const Scale& scale) {
  std::string out;
  for (const ChartBand& band : chart.bands) {
    const double from = scale.x(std::max(band.from, scale.x_min));
    const double to = scale.x(std::min(band.to, scale.x_max));
    if (to <= from) continue;
    out += fmt::format(
        R"(<g class="band" data-from="{:.3f}" data-to="{:.3f}"><rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}"/><text x="{:.1f}" y="{:.1f}">{}</text></g>)",
        band.from, band.to, from, kTop, to - from, kPlotHeight, from + 4, kTop + 12,
        html_escaped(band.label));
  }
  for (const ChartMarker& marker : chart.markers) {
    const double x = scale.x(marker.x);
    out += fmt::format(
        R"(<g class="marker" data-x="{:.4f}"><line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/><text x="{:.1f}" y="{:.1f}">{}</text></g>)",
        marker.x, x, kTop, x, kTop + kPlotHeight, x + 4, kTop + 24, html_escaped(marker.label));
  }
  return out;
}

std::string plot(const Chart& chart, const Scale& scale) {
  std::string out;
  std::vector<double> below;  // stacked areas: the top of the series drawn so far
  const std::size_t series_count = std::max<std::size_t>(1, chart.series.size());
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const ChartSeries& s = chart.series[k];
    const std::size_t n = std::min(s.x.size(), s.y.size());
    const std::string name = html_escaped(s.name);
    if (chart.kind == ChartKind::StackedArea) {
      below.resize(std::max(below.size(), n), 0);
      std::string top, bottom;
      for (std::size_t i = 0; i < n; ++i) {
        top += fmt::format("{:.1f},{:.1f} ", scale.x(s.x[i]), scale.y(below[i] + s.y[i]));
      }
      for (std::size_t i = n; i-- > 0;) {
        bottom += fmt::format("{:.1f},{:.1f} ", scale.x(s.x[i]), scale.y(below[i]));
      }
      for (std::size_t i = 0; i < n; ++i) below[i] += s.y[i];
      out += fmt::format(R"(<polygon data-series="{}" fill="{}" points="{}{}"/>)", name, s.colour,
                         top, bottom);
    } else if (chart.kind == ChartKind::Bars) {
      // Bars of one x side by side; the bin width is the spacing of the x values.
      const double spacing = n > 1 ? scale.x(s.x[1]) - scale.x(s.x[0]) : kPlotWidth / 10;
      const double width = std::max(1.0, spacing / static_cast<double>(series_count));
      out += fmt::format(R"(<g data-series="{}" fill="{}">)", name, s.colour);
      for (std::size_t i = 0; i < n; ++i) {
        if (s.y[i] <= 0) continue;
        const double x = scale.x(s.x[i]) + width * static_cast<double>(k);
        const double y = scale.y(s.y[i]);
        out += fmt::format(
            R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}"><title>{}: {} at {}</title></rect>)",
            x, y, width, kTop + kPlotHeight - y, name, number(s.y[i]), number(s.x[i]));
      }
      out += "</g>";
    } else {
      // A gap (a non-finite y: nothing measured then) ends one polyline and starts the next.
      std::string points;
      const auto flush = [&] {
        if (!points.empty()) {
          out += fmt::format(R"(<polyline data-series="{}" stroke="{}" points="{}"/>)", name,
                             s.colour, points);
        }
        points.clear();
      };
      for (std::size_t i = 0; i < n; ++i) {
        if (chart.log_x && !(s.x[i] > 0)) continue;
        if (!std::isfinite(s.y[i])) {
          flush();
          continue;
        }
        points += fmt::format("{:.1f},{:.1f} ", scale.x(s.x[i]), scale.y(s.y[i]));
      }
      flush();
    }
  }
  return out;
}

std::string legend(const Chart& chart) {
  std::string out;
  double x = kLeft + kPlotWidth;
  for (std::size_t k = chart.series.size(); k-- > 0;) {
    const ChartSeries& s = chart.series[k];
    x -= 14 + 7.0 * static_cast<double>(s.name.size()) + 10;
    out += fmt::format(
        R"(<g class="legend"><rect x="{:.1f}" y="11" width="10" height="10" fill="{}"/><text x="{:.1f}" y="20">{}</text></g>)",
        x, s.colour, x + 14, html_escaped(s.name));
  }
  return out;
}

}  // namespace

std::string html_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_svg(const Chart& chart) {
  const Scale scale = scale_of(chart);
  std::string out = fmt::format(
      R"(<svg id="{}" class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" role="img" aria-label="{}">)",
      html_escaped(chart.id), kWidth, kHeight, html_escaped(chart.title));
  out += axes(chart, scale);
  out += plot(chart, scale);
  out += bands_and_markers(chart, scale);  // over the plot, translucent: a band shows on areas too
  out += legend(chart);
  out += "</svg>\n";
  return out;
}

}  // namespace landlord::sim
