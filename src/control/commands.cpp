#include "landlord/control/commands.hpp"

#include <utility>

#include "handlers.hpp"
#include "landlord/control/request_json.hpp"

namespace landlord::control {
namespace {

using Handler = void (*)(Daemon&, TableScanner&, const nlohmann::json&, Commands::Reply);

struct Entry {
  std::string_view name;
  Handler handler;
};

// list-commands is answered by the dispatcher itself.
constexpr Entry kCommands[] = {
    {"status-get", handlers::status_get},
    {"config-get", handlers::config_get},
    {"config-test", handlers::config_test},
    {"config-reload", handlers::config_reload},
    {"statistic-get-all", handlers::statistic_get_all},
    {"subnet4-list", handlers::subnet4_list},
    {"lease4-get", handlers::lease4_get},
    {"lease4-get-all", handlers::lease4_get_all},
    {"lease4-get-page", handlers::lease4_get_page},
    {"lease4-add", handlers::lease4_add},
    {"lease4-update", handlers::lease4_update},
    {"lease4-del", handlers::lease4_del},
    {"lease4-wipe", handlers::lease4_wipe},
    {"leases-reclaim", handlers::leases_reclaim},
};

}  // namespace

nlohmann::json answer(int result, std::string text, nlohmann::json arguments) {
  nlohmann::json response{{"result", result}, {"text", std::move(text)}};
  if (!arguments.is_null()) response["arguments"] = std::move(arguments);
  return response;
}

const std::vector<std::string_view>& Commands::names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> list{"list-commands"};
    for (const Entry& entry : kCommands) list.push_back(entry.name);
    return list;
  }();
  return names;
}

void Commands::handle_body(std::string_view body, Reply reply) {
  const auto request = decode_request(body);
  if (!request) {
    reply(answer(kError, request.error()));
    return;
  }
  handle(*request, std::move(reply));
}

void Commands::handle(const nlohmann::json& request, Reply reply) {
  if (!request.is_object() || !request.contains("command") || !request["command"].is_string()) {
    reply(answer(kError, "a request is a map with a \"command\" string"));
    return;
  }
  // kea-ctrl-agent's form: the service named, the answers in a list (one per service).
  if (request.contains("service")) {
    const auto& service = request["service"];
    if (!service.is_array() || service.size() != 1 || service[0] != "dhcp4") {
      reply(nlohmann::json::array({answer(kError, "the only service here is [\"dhcp4\"]")}));
      return;
    }
    reply = [inner = std::move(reply)](Answer response) {
      if (response.stream) {
        response.stream->wrap("[", "]");
        return inner(std::move(response));
      }
      inner(nlohmann::json::array({std::move(response.json)}));
    };
  }
  const std::string& name = request["command"].get_ref<const std::string&>();
  static const nlohmann::json kNoArguments;
  const auto given = request.find("arguments");
  const nlohmann::json& arguments = given == request.end() ? kNoArguments : *given;
  if (name == "list-commands") {
    reply(answer(kSuccess, std::to_string(names().size()) + " commands", names()));
    return;
  }
  for (const Entry& entry : kCommands) {
    if (entry.name == name) {
      entry.handler(daemon_, scanner_, arguments, std::move(reply));
      return;
    }
  }
  // The name as given, cut: an answer never echoes a long request back.
  constexpr std::size_t kNameShown = 64;
  const std::string shown = name.size() <= kNameShown ? name : name.substr(0, kNameShown) + "...";
  reply(answer(kUnsupported, "'" + shown + "' command not supported."));
}

}  // namespace landlord::control
