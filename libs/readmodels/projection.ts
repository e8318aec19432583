import {
  accountDecider,
  alertChannelDecider,
  apiKeyDecider,
  checkDecider,
  checkGroupDecider,
  parseEvent,
  maintenanceWindowDecider,
  privateLocationDecider,
  statusPageDecider,
  statusPageSlugDecider,
  userDecider,
  userEmailDecider,
  variableDecider,
  type Decider,
} from '#domain';
import type { RecordedEvent } from '#eventstore';
import type { Projection, ReadView } from '#projections';
import type { WriteOp } from '#statestore';
import { keys, type Aggregate } from './keys.ts';
import { indexOps } from './indexes.ts';

/** Longest stream prefix first: "check-group-" must win over "check-". */
const streamPrefixes: [string, Aggregate][] = (
  [
    ['alert-channel-', 'alert-channel'],
    ['maintenance-window-', 'maintenance-window'],
    ['private-location-', 'private-location'],
    ['status-page-slug-', 'status-page-slug'],
    ['status-page-', 'status-page'],
    ['check-group-', 'check-group'],
    ['user-email-', 'user-email'],
    ['api-key-', 'api-key'],
    ['variable-', 'variable'],
    ['account-', 'account'],
    ['check-', 'check'],
    ['user-', 'user'],
  ] as [string, Aggregate][]
).sort((a, b) => b[0].length - a[0].length);

// The deciders' evolve functions are typed per aggregate; the projection only feeds each its own events.
const deciders: Record<Aggregate, Decider<unknown, unknown, unknown>> = {
  account: accountDecider,
  user: userDecider,
  'user-email': userEmailDecider,
  'api-key': apiKeyDecider,
  variable: variableDecider,
  check: checkDecider,
  'check-group': checkGroupDecider,
  'alert-channel': alertChannelDecider,
  'status-page': statusPageDecider,
  'status-page-slug': statusPageSlugDecider,
  'maintenance-window': maintenanceWindowDecider,
  'private-location': privateLocationDecider,
} as unknown as Record<Aggregate, Decider<unknown, unknown, unknown>>;

export function aggregateOf(stream: string): { aggregate: Aggregate; id: string } | undefined {
  for (const [prefix, aggregate] of streamPrefixes) {
    if (stream.startsWith(prefix)) return { aggregate, id: stream.slice(prefix.length) };
  }
  return undefined;
}

/**
 * Keeps one document per aggregate, folded with the aggregate's own evolve, so the read model
 * and the write side can never disagree; plus the indexes lists and look-ups need.
 */
export const controlPlaneProjection: Projection = {
  name: 'control-plane',
  async apply(event: RecordedEvent, view: ReadView): Promise<WriteOp[]> {
    const target = aggregateOf(event.stream);
    if (!target) return [];
    const decider = deciders[target.aggregate];
    const domainEvent = parseEvent(event.type, event.data);
    const key = keys.doc(target.aggregate, target.id);
    const raw = await view.get(key);
    const before = (raw === null ? decider.initialState() : JSON.parse(raw)) as Record<string, unknown>;
    const after = decider.evolve(before, domainEvent) as Record<string, unknown>;
    return [
      { op: 'set', key, value: JSON.stringify(after) },
      ...indexOps(target.aggregate, target.id, before, after, domainEvent, event),
    ];
  },
};
