#include "landlord/lease/lease.hpp"

namespace landlord::lease {

std::string_view to_string(LeaseState state) {
  switch (state) {
    case LeaseState::Offered:
      return "offered";
    case LeaseState::Bound:
      return "bound";
    case LeaseState::Released:
      return "released";
    case LeaseState::Expired:
      return "expired";
    case LeaseState::Declined:
      return "declined";
  }
  return "unknown";
}

std::string_view to_string(Extension extension) {
  switch (extension) {
    case Extension::None:
      return "none";
    case Extension::Renewing:
      return "renewing";
    case Extension::Rebinding:
      return "rebinding";
  }
  return "unknown";
}

std::string_view to_string(DnsState state) {
  switch (state) {
    case DnsState::None:
      return "none";
    case DnsState::Pending:
      return "pending";
    case DnsState::Done:
      return "done";
    case DnsState::Conflict:
      return "conflict";
    case DnsState::Failed:
      return "failed";
  }
  return "unknown";
}

std::string_view to_string(Phase phase) {
  switch (phase) {
    case Phase::Bound:
      return "bound";
    case Phase::PastT1:
      return "past-t1";
    case Phase::PastT2:
      return "past-t2";
    case Phase::Expired:
      return "expired";
  }
  return "unknown";
}

}  // namespace landlord::lease
