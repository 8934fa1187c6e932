#pragma once
// The command handlers, by family; commands.cpp maps names to them.
#include <nlohmann/json.hpp>

#include "landlord/control/commands.hpp"

namespace landlord::control::handlers {

using Reply = Commands::Reply;
using Json = nlohmann::json;

// server_commands.cpp
// config-tests at once (queued on the worker included); a fifth is refused until one answers.
inline constexpr std::size_t kMaxConfigTests = 4;
void status_get(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply);
void config_get(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply);
void config_test(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply);
void config_reload(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply);
void statistic_get_all(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply);
void subnet4_list(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply);

// lease_commands.cpp
void lease4_get(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply);
void lease4_get_all(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply);
void lease4_get_page(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply);
void lease4_add(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply);
void lease4_update(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply);
void lease4_del(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply);
void lease4_wipe(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply);
void leases_reclaim(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply);

}  // namespace landlord::control::handlers
