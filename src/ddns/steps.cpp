// Each step, per conflict mode. In the default check-with-dhcid mode (RFC 4703 §5.3, §5.5):
//   add:    [A]  NXDOMAIN(name)                      -> add A, add DHCID
//                on YXDOMAIN:
//           [B]  DHCID(name) = ours                  -> delete A RRset, add A
//                on NXRRSET the name is someone else's: stop, no PTR
//           [C]  NXDOMAIN(rev)                       -> add PTR, add DHCID
//                on YXDOMAIN:
//           [D]  a DHCID exists at rev               -> delete PTR and DHCID RRsets, add both
//                on NXRRSET the PTR is an operator's: untouched
//   remove: [E]  DHCID(name) = ours                  -> delete our A
//           [F]  DHCID = ours, no A, no AAAA         -> delete the DHCID
//           [G]  DHCID(rev) = ours                   -> delete the PTR and DHCID RRsets
// A record without a DHCID is never changed by a check mode: every write to an existing name
// is conditional on a DHCID being there.
#include "steps.hpp"

#include "landlord/base/assert.hpp"

namespace landlord::ddns::detail {

bool is_forward(Step step) {
  return step == Step::kAddForward || step == Step::kReplaceForward ||
         step == Step::kRemoveForwardAddress || step == Step::kRemoveForwardDhcid;
}

Step reverse_step(Operation operation, bool reverse) {
  if (!reverse) return Step::kDone;
  return operation == Operation::kAdd ? Step::kAddReverse : Step::kRemoveReverse;
}

Step first_step(Operation operation, bool forward, bool reverse) {
  if (forward) return operation == Operation::kAdd ? Step::kAddForward : Step::kRemoveForwardAddress;
  return reverse_step(operation, reverse);
}

namespace {

bool uses_dhcid(ConflictMode mode) { return mode != ConflictMode::kNoCheckWithoutDhcid; }
bool checks(ConflictMode mode) {
  return mode == ConflictMode::kCheckWithDhcid || mode == ConflictMode::kCheckExistsWithDhcid;
}

// The first step of either side: `type` and our DHCID at `name`. The check modes ask for a
// name nobody uses (the common case: one round trip); the others clear what is there.
void claim(const Name& name, std::uint16_t type, const std::vector<std::uint8_t>& rdata, const StepContext& c,
           UpdateMessage& m) {
  const bool dhcid = uses_dhcid(c.mode);
  if (checks(c.mode)) {
    m.prerequisites.push_back(prerequisite::name_not_in_use(name));
  } else {
    m.updates.push_back(update::delete_rrset(name, type));
    if (dhcid) m.updates.push_back(update::delete_rrset(name, rr_type::kDhcid));
  }
  m.updates.push_back(update::add(name, type, c.ttl_s, rdata));
  if (dhcid) m.updates.push_back(update::add(name, rr_type::kDhcid, c.ttl_s, c.dhcid));
}

void forward_steps(Step step, const StepContext& c, UpdateMessage& m) {
  const Name& name = c.binding.fqdn;
  const auto a = a_rdata(c.binding.address);
  switch (step) {
    case Step::kAddForward:
      claim(name, rr_type::kA, a, c, m);
      return;
    case Step::kReplaceForward:
      if (c.mode == ConflictMode::kCheckWithDhcid) {
        m.prerequisites.push_back(prerequisite::rrset_exists_with(name, rr_type::kDhcid, c.dhcid));
        m.updates.push_back(update::delete_rrset(name, rr_type::kA));
      } else {  // check-exists: any DHCP client's name may be taken over, with its DHCID
        m.prerequisites.push_back(prerequisite::rrset_exists(name, rr_type::kDhcid));
        m.updates.push_back(update::delete_rrset(name, rr_type::kA));
        m.updates.push_back(update::delete_rrset(name, rr_type::kDhcid));
        m.updates.push_back(update::add(name, rr_type::kDhcid, c.ttl_s, c.dhcid));
      }
      m.updates.push_back(update::add(name, rr_type::kA, c.ttl_s, a));
      return;
    case Step::kRemoveForwardAddress:
      if (c.mode == ConflictMode::kCheckWithDhcid) {
        m.prerequisites.push_back(prerequisite::rrset_exists_with(name, rr_type::kDhcid, c.dhcid));
      } else if (c.mode == ConflictMode::kCheckExistsWithDhcid) {
        m.prerequisites.push_back(prerequisite::rrset_exists(name, rr_type::kDhcid));
      }
      m.updates.push_back(update::delete_rr(name, rr_type::kA, a));
      return;
    case Step::kRemoveForwardDhcid:
      if (c.mode == ConflictMode::kCheckWithDhcid) {
        m.prerequisites.push_back(prerequisite::rrset_exists_with(name, rr_type::kDhcid, c.dhcid));
      }
      m.prerequisites.push_back(prerequisite::rrset_does_not_exist(name, rr_type::kA));
      m.prerequisites.push_back(prerequisite::rrset_does_not_exist(name, rr_type::kAaaa));
      m.updates.push_back(update::delete_rr(name, rr_type::kDhcid, c.dhcid));
      return;
    default:
      LANDLORD_ASSERT(false);
  }
}

void reverse_steps(Step step, const StepContext& c, UpdateMessage& m) {
  LANDLORD_ASSERT(c.reverse_name.has_value());
  const Name& name = *c.reverse_name;
  const auto ptr = ptr_rdata(c.binding.fqdn);
  const bool dhcid = uses_dhcid(c.mode);
  switch (step) {
    case Step::kAddReverse:
      claim(name, rr_type::kPtr, ptr, c, m);
      return;
    case Step::kReplaceReverse:
      // The address is this client's now: a PTR left by another DHCP client (it carries a
      // DHCID) is stale and replaced; one without a DHCID is the operator's and stays.
      m.prerequisites.push_back(prerequisite::rrset_exists(name, rr_type::kDhcid));
      m.updates.push_back(update::delete_rrset(name, rr_type::kPtr));
      m.updates.push_back(update::delete_rrset(name, rr_type::kDhcid));
      m.updates.push_back(update::add(name, rr_type::kPtr, c.ttl_s, ptr));
      m.updates.push_back(update::add(name, rr_type::kDhcid, c.ttl_s, c.dhcid));
      return;
    case Step::kRemoveReverse:
      if (checks(c.mode)) {
        m.prerequisites.push_back(prerequisite::rrset_exists_with(name, rr_type::kDhcid, c.dhcid));
        m.updates.push_back(update::delete_rrset(name, rr_type::kPtr));
        m.updates.push_back(update::delete_rrset(name, rr_type::kDhcid));
      } else {
        m.updates.push_back(update::delete_rr(name, rr_type::kPtr, ptr));
        if (dhcid) m.updates.push_back(update::delete_rr(name, rr_type::kDhcid, c.dhcid));
      }
      return;
    default:
      LANDLORD_ASSERT(false);
  }
}

Judgement side_ends(RecordStatus status, Step next) { return {Judgement::kAdvance, next, status, Cause::kNone}; }

Judgement unexpected_rcode() { return {Judgement::kFail, Step::kDone, RecordStatus::kFailed, Cause::kUnexpectedRcode}; }

}  // namespace

UpdateMessage build_step(Step step, const StepContext& context) {
  UpdateMessage message;
  if (is_forward(step)) {
    message.zone = context.forward_zone;
    forward_steps(step, context, message);
  } else {
    message.zone = context.reverse_zone;
    reverse_steps(step, context, message);
  }
  return message;
}

Judgement judge(Operation operation, Step step, Rcode rcode, ConflictMode mode, bool reverse_wanted) {
  switch (rcode) {
    case Rcode::kServFail: return {Judgement::kRetry, step, std::nullopt, Cause::kServFail};
    case Rcode::kRefused: return {Judgement::kFail, Step::kDone, RecordStatus::kFailed, Cause::kRefused};
    case Rcode::kNotAuth: return {Judgement::kFail, Step::kDone, RecordStatus::kFailed, Cause::kNotAuth};
    case Rcode::kNotZone: return {Judgement::kFail, Step::kDone, RecordStatus::kFailed, Cause::kNotZone};
    case Rcode::kFormErr: return {Judgement::kFail, Step::kDone, RecordStatus::kFailed, Cause::kFormErr};
    case Rcode::kNotImp: return {Judgement::kFail, Step::kDone, RecordStatus::kFailed, Cause::kNotImp};
    default: break;
  }
  const Step after_forward = reverse_step(operation, reverse_wanted);
  const bool ok = rcode == Rcode::kNoError;
  switch (step) {
    case Step::kAddForward:
      if (ok) return side_ends(RecordStatus::kDone, after_forward);
      if (rcode == Rcode::kYxDomain && checks(mode)) return {Judgement::kAdvance, Step::kReplaceForward, std::nullopt, Cause::kNone};
      return unexpected_rcode();
    case Step::kReplaceForward:
      if (ok) return side_ends(RecordStatus::kDone, after_forward);
      // RFC 4703 §5.3.1: the name is another client's; its PTR is not ours to write either.
      if (rcode == Rcode::kNxRrset) return side_ends(RecordStatus::kConflict, Step::kDone);
      return unexpected_rcode();
    case Step::kAddReverse:
      if (ok) return side_ends(RecordStatus::kDone, Step::kDone);
      if (rcode == Rcode::kYxDomain && checks(mode)) return {Judgement::kAdvance, Step::kReplaceReverse, std::nullopt, Cause::kNone};
      return unexpected_rcode();
    case Step::kReplaceReverse:
      if (ok) return side_ends(RecordStatus::kDone, Step::kDone);
      if (rcode == Rcode::kNxRrset) return side_ends(RecordStatus::kConflict, Step::kDone);
      return unexpected_rcode();
    case Step::kRemoveForwardAddress:
      if (ok) {
        if (uses_dhcid(mode)) return {Judgement::kAdvance, Step::kRemoveForwardDhcid, std::nullopt, Cause::kNone};
        return side_ends(RecordStatus::kDone, after_forward);
      }
      // No DHCID of ours at the name: not ours to remove (or already gone). The PTR of our
      // address is still ours, so the reverse side goes on.
      if (rcode == Rcode::kNxRrset) return side_ends(RecordStatus::kConflict, after_forward);
      return unexpected_rcode();
    case Step::kRemoveForwardDhcid:
      // YXRRSET: the client still has another address under the name, so the DHCID stays.
      if (ok || rcode == Rcode::kYxRrset || rcode == Rcode::kNxRrset) return side_ends(RecordStatus::kDone, after_forward);
      return unexpected_rcode();
    case Step::kRemoveReverse:
      if (ok) return side_ends(RecordStatus::kDone, Step::kDone);
      if (rcode == Rcode::kNxRrset || rcode == Rcode::kNxDomain) return side_ends(RecordStatus::kConflict, Step::kDone);
      return unexpected_rcode();
    case Step::kDone:
      break;
  }
  LANDLORD_ASSERT(false);
  return unexpected_rcode();
}

}  // namespace landlord::ddns::detail
