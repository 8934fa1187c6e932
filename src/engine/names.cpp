// The names of the engine's enums, for log lines and the control API.
#include "landlord/engine/engine.hpp"

namespace landlord::engine {

std::string_view to_string(Route route) {
  switch (route) {
    case Route::Relay:
      return "relay";
    case Route::Ciaddr:
      return "ciaddr";
    case Route::Broadcast:
      return "broadcast";
    case Route::DirectToClient:
      return "direct";
  }
  return "unknown";
}

std::string_view to_string(EventKind kind) {
  switch (kind) {
    case EventKind::Offer:
      return "offer";
    case EventKind::Grant:
      return "grant";
    case EventKind::Renew:
      return "renew";
    case EventKind::Rebind:
      return "rebind";
    case EventKind::Release:
      return "release";
    case EventKind::Decline:
      return "decline";
    case EventKind::Expire:
      return "expire";
    case EventKind::Nak:
      return "nak";
    case EventKind::Inform:
      return "inform";
    case EventKind::Ignore:
      return "ignore";
    case EventKind::Admin:
      return "admin";
    case EventKind::Dns:
      return "dns";
  }
  return "unknown";
}

}  // namespace landlord::engine
