#pragma once
// The steps of an update transaction (RFC 4703 §5) for each conflict mode: what each sends
// (build_step) and what the server's answer means (judge). Private to the module.
#include <optional>
#include <vector>

#include "landlord/ddns/message.hpp"
#include "landlord/ddns/updater.hpp"

namespace landlord::ddns::detail {

struct StepContext {
  const Binding& binding;
  const Name& forward_zone;
  const std::optional<Name>& reverse_name;
  const Name& reverse_zone;
  const std::vector<std::uint8_t>& dhcid;  // empty in no-check-without-dhcid
  std::uint32_t ttl_s;
  ConflictMode mode;
};

bool is_forward(Step step);
Step first_step(Operation operation, bool forward, bool reverse);
// The first step of the reverse side, or kDone when it is not wanted.
Step reverse_step(Operation operation, bool reverse);
UpdateMessage build_step(Step step, const StepContext& context);

struct Judgement {
  enum Kind { kAdvance, kRetry, kFail } kind = kAdvance;
  Step next = Step::kDone;
  // When this answer ends a side: that side's status (the caller sets it on kAdvance too).
  std::optional<RecordStatus> side_status;
  Cause cause = Cause::kNone;
};
Judgement judge(Operation operation, Step step, Rcode rcode, ConflictMode mode, bool reverse_wanted);

}  // namespace landlord::ddns::detail
