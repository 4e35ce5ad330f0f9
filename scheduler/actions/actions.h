// The scheduler's actions (KAI pkg/scheduler/actions, reference §7), registered explicitly.
#pragma once

#include <memory>
#include <string_view>

#include "kube/base/status.h"
#include "scheduler/framework/session.h"

namespace kai::scheduler {

std::unique_ptr<Action> NewAllocateAction();
std::unique_ptr<Action> NewConsolidationAction();
std::unique_ptr<Action> NewReclaimAction();
std::unique_ptr<Action> NewPreemptAction();
std::unique_ptr<Action> NewStaleGangEvictionAction();

// allocate, consolidation, reclaim, preempt, stalegangeviction.
void RegisterDefaultActions(ActionRegistry* registry);

// OK for a name RegisterDefaultActions registers; otherwise InvalidArgument naming it and the
// known actions (for command lines that take an action list).
Status CheckActionName(std::string_view name);

}  // namespace kai::scheduler
