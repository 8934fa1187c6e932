#include "landlord/control/request_json.hpp"

#include <vector>

namespace landlord::control {
namespace {

using Json = nlohmann::json;

// nlohmann's SAX events built into a tree, as its own DOM builder does, but refusing depth and
// duplicate keys as they come: the parse stops at the first, before anything deeper is made.
class Builder {
 public:
  bool null() { return add(Json(nullptr)); }
  bool boolean(bool value) { return add(Json(value)); }
  bool number_integer(Json::number_integer_t value) { return add(Json(value)); }
  bool number_unsigned(Json::number_unsigned_t value) { return add(Json(value)); }
  bool number_float(Json::number_float_t value, const Json::string_t&) { return add(Json(value)); }
  bool string(Json::string_t& value) { return add(Json(std::move(value))); }
  bool binary(Json::binary_t& value) { return add(Json(std::move(value))); }
  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(Json::string_t& name) {
    if (open_.back()->contains(name)) {
      error_ = "the key \"" + shorten(name) + "\" appears twice in one object";
      return false;
    }
    key_ = std::move(name);
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) {
    error_ = "invalid JSON in the request body (at byte " + std::to_string(position) + ")";
    return false;
  }

  Json take() { return std::move(root_); }
  const std::string& error() const { return error_; }

 private:
  // A key echoed in an error: enough to find it, never the body.
  static std::string shorten(const std::string& text) {
    constexpr std::size_t kShown = 40;
    return text.size() <= kShown ? text : text.substr(0, kShown) + "...";
  }

  Json* place(Json value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Json& parent = *open_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    return &(parent[key_] = std::move(value));
  }
  bool add(Json value) {
    place(std::move(value));
    return true;
  }
  bool open(Json container) {
    if (open_.size() >= kMaxJsonDepth) {
      error_ = "the request nests deeper than " + std::to_string(kMaxJsonDepth) + " levels";
      return false;
    }
    open_.push_back(place(std::move(container)));  // an array's last element stays put until closed
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  Json root_;
  std::vector<Json*> open_;
  std::string key_;
  std::string error_;
};

}  // namespace

Expected<nlohmann::json, std::string> decode_request(std::string_view body) {
  Builder builder;
  const bool parsed = Json::sax_parse(body, &builder);
  if (!parsed) {
    if (builder.error().empty()) return unexpected(std::string{"invalid JSON in the request body"});
    return unexpected(builder.error());
  }
  return builder.take();
}

}  // namespace landlord::control
