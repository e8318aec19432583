// Public surface of #scheduling: what the runner and the API's agent routes share to plan and claim
// runs. The per-location due-queue in the state store, the window arithmetic and claim decisions,
// the catalogue of scheduled checks and where each runs, and the per-run runtime and variables.
// The runner app drives these; the API leases the same queue to private-location agents.
export {
  RESULT_ID_NAMESPACE,
  windowStart,
  offsetMs,
  plannedStart,
  runResultId,
  heartbeatResultId,
  firstWindow,
  nextWindow,
  decideClaim,
  decideRun,
  maxLatenessMs,
  evaluateHeartbeat,
  type ClaimDecision,
  type RunDecision,
  type SkipReason,
  type HeartbeatState,
  type HeartbeatEvaluation,
} from './schedule.ts';
export {
  DueQueue,
  slotSchema,
  queueKeys,
  skippedLastHour,
  type Slot,
  type Claimed,
  type Scheduled,
  type SkippedLastHour,
  type LateClaim,
} from './queue.ts';
export { Catalogue, placementOf, type Placement, type CatalogueEntry, type ScheduleChange } from './catalogue.ts';
export { noDataSignal } from './no-data.ts';
export { RunRuntimeResolver } from './runtime.ts';
export { RunVariableCache } from './variables.ts';
