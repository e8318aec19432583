import { createHash } from 'node:crypto';
import type { RecordedEvent } from '#eventstore';
import type { WriteOp } from '#statestore';
import { keys, type Aggregate } from './keys.ts';

// States are the domain's own; the index code reads only the few fields it needs.
type Doc = Record<string, unknown> & { status?: string };

const ms = (iso: unknown): number => (typeof iso === 'string' ? Date.parse(iso) || 0 : 0);

/** Index entries that follow from one event: lists, look-ups by hash or email, subscriptions. */
export function indexOps(
  aggregate: Aggregate,
  id: string,
  before: Doc,
  after: Doc,
  event: { type: string; data: unknown },
  recorded: RecordedEvent,
): WriteOp[] {
  switch (aggregate) {
    case 'user-email':
      return typeof after.reservedBy === 'string'
        ? [{ op: 'set', key: keys.userByEmail(id), value: after.reservedBy }]
        : [];
    case 'user':
      return userOps(id, event);
    case 'api-key':
      return apiKeyOps(id, before, after);
    case 'variable':
      return membership(
        keys.accountVariables(String(after.accountId ?? recorded.metadata.accountId)),
        String(after.key ?? ''),
        0,
        after.status === 'active',
      );
    case 'check':
      return checkOps(id, before, after);
    case 'check-group':
      return [
        ...membership(keys.accountGroups(String(after.accountId)), id, ms(after.createdAt), after.status === 'active'),
        ...groupTriggerOps(id, before, after),
      ];
    case 'alert-channel':
      return channelOps(id, before, after);
    case 'account':
      return [];
    case 'status-page':
      return membership(
        keys.accountStatusPages(String(after.accountId)),
        id,
        ms(after.createdAt),
        after.status === 'active',
      );
    case 'maintenance-window': {
      const window = after.window as { createdAt?: string } | undefined;
      return membership(
        keys.accountMaintenanceWindows(String(after.accountId)),
        id,
        ms(window?.createdAt),
        after.status === 'active',
      );
    }
    case 'private-location':
      return privateLocationOps(id, before, after);
    case 'status-page-slug':
      return typeof after.reservedBy === 'string'
        ? [{ op: 'set', key: keys.statusPageBySlug(id), value: after.reservedBy }]
        : [{ op: 'del', key: keys.statusPageBySlug(id) }];
  }
}

function membership(key: string, member: string, score: number, present: boolean): WriteOp[] {
  return [present ? { op: 'zadd', key, member, score } : { op: 'zrem', key, member }];
}

function userOps(userId: string, event: { type: string; data: unknown }): WriteOp[] {
  const data = event.data as { accountId?: string };
  if (!data.accountId) return [];
  if (event.type === 'UserAddedToAccount' || event.type === 'UserRoleChanged') {
    return [{ op: 'zadd', key: keys.accountMembers(data.accountId), member: userId, score: 0 }];
  }
  if (event.type === 'UserRemovedFromAccount')
    return [{ op: 'zrem', key: keys.accountMembers(data.accountId), member: userId }];
  return [];
}

function apiKeyOps(keyId: string, before: Doc, after: Doc): WriteOp[] {
  const hash = String(after.hash);
  const list =
    after.type === 'service'
      ? keys.accountServiceKeys(String(after.accountId))
      : keys.userApiKeys(String(after.userId));
  if (after.status === 'active' && before.status !== 'active') {
    return [
      { op: 'set', key: keys.apiKeyByHash(hash), value: keyId },
      { op: 'zadd', key: list, member: keyId, score: ms(after.createdAt) },
    ];
  }
  if (after.status === 'revoked') {
    return [
      { op: 'del', key: keys.apiKeyByHash(hash) },
      { op: 'zrem', key: list, member: keyId },
    ];
  }
  return [];
}

function checkOps(checkId: string, before: Doc, after: Doc): WriteOp[] {
  const groupOf = (doc: Doc) => (doc.check as { groupId?: string | null } | undefined)?.groupId ?? null;
  const ops: WriteOp[] = [];
  const active = after.status === 'active';
  ops.push(...membership(keys.accountChecks(String(after.accountId)), checkId, ms(after.createdAt), active));
  const oldGroup = groupOf(before);
  const newGroup = active ? groupOf(after) : null;
  if (oldGroup && oldGroup !== newGroup) ops.push({ op: 'zrem', key: keys.groupChecks(oldGroup), member: checkId });
  if (newGroup) ops.push({ op: 'zadd', key: keys.groupChecks(newGroup), member: checkId, score: 0 });
  // The ping URL's token finds its check; a rotated or deleted check's old token stops working at once.
  const oldToken = pingTokenOf(before);
  const newToken = active ? pingTokenOf(after) : null;
  if (oldToken && oldToken !== newToken) ops.push({ op: 'del', key: keys.heartbeatToken(oldToken) });
  if (newToken && newToken !== oldToken) ops.push({ op: 'set', key: keys.heartbeatToken(newToken), value: checkId });
  return ops;
}

function pingTokenOf(doc: Doc): string | null {
  const heartbeat = (doc.check as { heartbeat?: { pingToken?: unknown } } | undefined)?.heartbeat;
  return typeof heartbeat?.pingToken === 'string' ? heartbeat.pingToken : null;
}

/** The digest of a group trigger's token finds its group; a deleted trigger or group stops at once. */
function groupTriggerOps(groupId: string, before: Doc, after: Doc): WriteOp[] {
  const tokenOf = (doc: Doc) =>
    doc.status === 'active' ? ((doc.trigger as { token?: string } | undefined)?.token ?? null) : null;
  const was = tokenOf(before);
  const now = tokenOf(after);
  if (was === now) return [];
  const ops: WriteOp[] = [];
  if (was) ops.push({ op: 'del', key: keys.groupTriggerByDigest(triggerTokenDigest(was)) });
  if (now) ops.push({ op: 'set', key: keys.groupTriggerByDigest(triggerTokenDigest(now)), value: groupId });
  return ops;
}

/** sha256 hex of a trigger token: the index keeps no token in clear. */
export function triggerTokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

interface SubscriptionDoc {
  checkId: string | null;
  groupId: string | null;
  activated: boolean;
}

function channelOps(channelId: string, before: Doc, after: Doc): WriteOp[] {
  const active = after.status === 'active';
  const accountId = String((after.channel as { accountId?: string } | undefined)?.accountId ?? after.accountId);
  const targets = (doc: Doc): Set<string> => {
    if (doc.status !== 'active') return new Set();
    const subscriptions = (doc.subscriptions as SubscriptionDoc[] | undefined) ?? [];
    return new Set(
      subscriptions
        .filter((s) => s.activated)
        .map((s) => (s.checkId ? keys.checkChannels(s.checkId) : keys.groupChannels(String(s.groupId)))),
    );
  };
  const was = targets(before);
  const now = targets(after);
  const ops: WriteOp[] = membership(keys.accountChannels(accountId), channelId, ms(after.createdAt), active);
  for (const key of was) if (!now.has(key)) ops.push({ op: 'zrem', key, member: channelId });
  for (const key of now) if (!was.has(key)) ops.push({ op: 'zadd', key, member: channelId, score: 0 });
  return ops;
}

/** The account's list, and each live key's hash → `<locationId>:<keyId>`; a revoked key or a deleted location stops at once. */
function privateLocationOps(locationId: string, before: Doc, after: Doc): WriteOp[] {
  const hashes = (doc: Doc): Map<string, string> => {
    if (doc.status !== 'active') return new Map();
    const list = (doc.keys as { id: string; hash: string }[] | undefined) ?? [];
    return new Map(list.map((key) => [key.hash, key.id]));
  };
  const location = after.location as { createdAt?: string } | undefined;
  const ops = membership(
    keys.accountPrivateLocations(String(after.accountId)),
    locationId,
    ms(location?.createdAt),
    after.status === 'active',
  );
  const was = hashes(before);
  const now = hashes(after);
  for (const hash of was.keys()) if (!now.has(hash)) ops.push({ op: 'del', key: keys.privateLocationKeyByHash(hash) });
  for (const [hash, keyId] of now)
    if (!was.has(hash))
      ops.push({ op: 'set', key: keys.privateLocationKeyByHash(hash), value: `${locationId}:${keyId}` });
  return ops;
}
