import { Redis, type RedisOptions } from 'ioredis';
import { AppError, InternalError, UnavailableError, createLogger, type Logger } from '#core';
import type { ClaimedRun, ScoredMember, StateStore, WriteOp } from './port.ts';
import { checkBound, checkInteger, checkOps, checkScore, checkTtl } from './validate.ts';

/**
 * Applies a batch atomically. MULTI/EXEC would isolate the batch too, but it keeps the ops
 * before a failing one (Redis never rolls back). The only error a validated op can meet is
 * a key holding another type, so the script first checks every key's type, following the
 * types the batch itself creates, and only then writes: a batch applies fully or not at all.
 * KEYS[i] is op i's key; ARGV holds three strings per op: name, then two operands.
 */
const WRITE_LUA = `
local types = {}
for i = 1, #KEYS do
  local op = ARGV[i * 3 - 2]
  local key = KEYS[i]
  local t = types[key]
  if t == nil then t = redis.call('TYPE', key)['ok'] end
  if op == 'set' then t = 'string'
  elseif op == 'del' then t = 'none'
  else
    local want = (op == 'hset' or op == 'hdel' or op == 'hincr') and 'hash' or 'zset'
    if t ~= 'none' and t ~= want then
      return redis.error_reply('WRONGTYPE ops[' .. (i - 1) .. '] ' .. op .. ' on a key holding a ' .. t)
    end
    if op == 'hset' or op == 'zadd' or op == 'hincr' then t = want end
  end
  types[key] = t
end
for i = 1, #KEYS do
  local op, a, b, key = ARGV[i * 3 - 2], ARGV[i * 3 - 1], ARGV[i * 3], KEYS[i]
  if op == 'set' then
    if b == '' then redis.call('SET', key, a) else redis.call('SET', key, a, 'PX', b) end
  elseif op == 'del' then redis.call('DEL', key)
  elseif op == 'hset' then redis.call('HSET', key, a, b)
  elseif op == 'hdel' then redis.call('HDEL', key, a)
  elseif op == 'hincr' then redis.call('HINCRBY', key, a, b)
  elseif op == 'zadd' then redis.call('ZADD', key, b, a)
  elseif op == 'zrem' then redis.call('ZREM', key, a)
  end
end
return #KEYS
`;

/** Keys per setMany script call. */
const SET_MANY_CHUNK = 5_000;

/** Sets every key in KEYS to ARGV[1], with a TTL of ARGV[2] ms unless it is empty. */
const SET_MANY_LUA = `
for i = 1, #KEYS do
  if ARGV[2] == '' then redis.call('SET', KEYS[i], ARGV[1]) else redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2]) end
end
return #KEYS
`;

/** Leases due members: ARGV = now, lease end, limit. Runs atomically, so no member goes to two callers. */
const CLAIM_LUA = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[3]))
for i = 1, #due, 2 do redis.call('ZADD', KEYS[1], ARGV[2], due[i]) end
return due
`;

/**
 * The round robin both fair claims share: entries enlisted per group in scan order, then taken one
 * per group in turn (earliest first in each) until the limit, each handed to take(i).
 */
const ROUND_ROBIN_LUA = `
local function enlist(lists, order, g, i)
  local list = lists[g]
  if list == nil then
    list = {}
    lists[g] = list
    order[#order + 1] = g
  end
  list[#list + 1] = i
end
local function roundRobin(order, lists, limit, take)
  local taken, round = 0, 1
  while taken < limit do
    local any = false
    for _, g in ipairs(order) do
      local i = lists[g][round]
      if i ~= nil then
        any = true
        take(i)
        taken = taken + 1
        if taken >= limit then break end
      end
    end
    if not any then break end
    round = round + 1
  end
end
`;

/**
 * Leases due members fairly across groups: ARGV = now, lease end, limit, scan; KEYS = queue, groups
 * hash. Round robin over the groups of the first scan due members, earliest first in each.
 */
const CLAIM_FAIR_LUA = `${ROUND_ROBIN_LUA}
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[4]))
local n = #due / 2
if n == 0 then return {} end
local names = {}
for i = 1, n do names[i] = due[2 * i - 1] end
local groups = redis.call('HMGET', KEYS[2], unpack(names))
local order, lists = {}, {}
for i = 1, n do enlist(lists, order, groups[i] or '', i) end
local out = {}
roundRobin(order, lists, tonumber(ARGV[3]), function(i)
  redis.call('ZADD', KEYS[1], ARGV[2], due[2 * i - 1])
  out[#out + 1] = due[2 * i - 1]
  out[#out + 1] = due[2 * i]
end)
return out
`;

/**
 * The fair claim with the late rule of LateRule (port.ts): KEYS = queue, groups hash, slot key
 * prefix (a KEYS entry so the client's key prefix applies to it), skips hash; ARGV = now, lease
 * end, limit, scan, lease, since, spareListed ('1'/'0'), late cap (ms, '' for none), then the listed groups. Returns
 * member, score, slot ('' for none) per claimed entry, then the number of windows skipped.
 * Numbers are written with %.0f: Lua's tostring would print 1.8e+12.
 */
const CLAIM_RUNS_LUA = `${ROUND_ROBIN_LUA}
local now, limit, lease, since = tonumber(ARGV[1]), tonumber(ARGV[3]), tonumber(ARGV[5]), tonumber(ARGV[6])
local spareListed = ARGV[7] == '1'
local cap = tonumber(ARGV[8])
local listed = {}
for i = 9, #ARGV do listed[ARGV[i]] = true end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[4]))
local n = #due / 2
if n == 0 then return {0} end
local names, slotKeys = {}, {}
for i = 1, n do
  names[i] = due[2 * i - 1]
  slotKeys[i] = KEYS[3] .. names[i]
end
local groups = redis.call('HMGET', KEYS[2], unpack(names))
local slots = redis.call('MGET', unpack(slotKeys))
local function num(x) return string.format('%.0f', x) end
local skipped, order, lists = 0, {}, {}
for i = 1, n do
  local raw, late = slots[i], false
  local g = groups[i] or ''
  if raw and string.find(raw, '"every"', 1, true) then
    local ok, s = pcall(cjson.decode, raw)
    if ok and type(s) == 'table' and s.kind == 'run' and type(s.window) == 'number' and type(s.due) == 'number'
      and type(s.every) == 'number' and s.every > 0 and type(s.offset) == 'number' and type(s.late) == 'number' then
      local w, f, score = s.window, s.every, tonumber(due[2 * i])
      local lateMs = s.late
      if cap and cap < lateMs then lateMs = cap end
      if s.due >= since and score < s.due + lease and now - s.due > lateMs and now < w + f + lease
        and not (((listed[g] == true) == spareListed) and now < w + f) then
        local nx = math.max(w + f, math.floor(now / f) * f)
        while now - (nx + s.offset) > lateMs do nx = nx + f end
        local nd = nx + s.offset
        redis.call('SET', slotKeys[i], '{"kind":"run","window":' .. num(nx) .. ',"due":' .. num(nd) .. ',"every":' .. num(f)
          .. ',"offset":' .. num(s.offset) .. ',"late":' .. num(s.late) .. '}')
        redis.call('ZADD', KEYS[1], num(nd), names[i])
        local k = math.floor((nx - w) / f + 0.5)
        redis.call('HINCRBY', KEYS[4], names[i], num(k))
        skipped = skipped + k
        late = true
      end
    end
  end
  if not late then enlist(lists, order, g, i) end
end
local out = {}
roundRobin(order, lists, limit, function(i)
  redis.call('ZADD', KEYS[1], ARGV[2], names[i])
  out[#out + 1] = names[i]
  out[#out + 1] = due[2 * i]
  out[#out + 1] = slots[i] or ''
end)
out[#out + 1] = skipped
return out
`;

/** Lua's unpack takes at most a few thousand values: the fair claim's scan stays under it. */
const MAX_FAIR_SCAN = 4000;

interface ScriptCommands {
  vigilWrite(numKeys: number, ...keysThenArgs: string[]): Promise<number>;
  vigilSetMany(numKeys: number, ...keysThenArgs: string[]): Promise<number>;
  vigilClaim(key: string, now: string, leaseEnd: string, limit: string): Promise<string[]>;
  vigilClaimFair(
    key: string,
    groupsKey: string,
    now: string,
    leaseEnd: string,
    limit: string,
    scan: string,
  ): Promise<string[]>;
  vigilClaimRuns(...keysThenArgs: string[]): Promise<Array<string | number>>;
}

export interface RedisStateStoreOptions {
  url: string;
  /** Prepended to every key, including the keys the Lua scripts touch. */
  keyPrefix?: string;
  log?: Logger;
  /** A command without a reply after this long fails as unavailable. */
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
}

const UNAVAILABLE_REPLIES = /^(LOADING|BUSY|MASTERDOWN|READONLY|OOM|NOREPLICAS|TRYAGAIN|CLUSTERDOWN)\b/;

function translate(error: unknown, what: string): AppError {
  if (error instanceof AppError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === 'ReplyError') {
    if (message.startsWith('WRONGTYPE')) {
      return new InternalError(`State store key holds a different type of value: ${what}: ${message}`, {
        cause: error,
      });
    }
    if (UNAVAILABLE_REPLIES.test(message))
      return new UnavailableError(`Redis cannot serve ${what} now: ${message}`, { cause: error });
    return new InternalError(`Redis rejected ${what}: ${message}`, { cause: error });
  }
  // Everything else is the connection: refused, reset, timed out, retries exhausted, closed.
  return new UnavailableError(`Redis is unavailable (${what}): ${message}`, { cause: error });
}

function formatBound(bound: number): string {
  if (bound === Infinity) return '+inf';
  if (bound === -Infinity) return '-inf';
  return String(bound);
}

function parseScore(raw: string): number {
  if (raw === 'inf' || raw === '+inf') return Infinity;
  if (raw === '-inf') return -Infinity;
  return Number(raw);
}

function pairs(flat: string[]): ScoredMember[] {
  const members: ScoredMember[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2)
    members.push({ member: flat[i] as string, score: parseScore(flat[i + 1] as string) });
  return members;
}

function opArgs(op: WriteOp): [string, string, string] {
  switch (op.op) {
    case 'set':
      return [
        'set',
        op.prefix === undefined ? op.value : op.prefix + op.value,
        op.ttlMs === undefined ? '' : String(checkTtl(op.ttlMs)),
      ];
    case 'del':
      return ['del', '', ''];
    case 'hset':
      return ['hset', op.field, op.value];
    case 'hdel':
      return ['hdel', op.field, ''];
    case 'hincr':
      return ['hincr', op.field, String(op.by)];
    case 'zadd':
      return ['zadd', op.member, String(op.score)];
    case 'zrem':
      return ['zrem', op.member, ''];
  }
}

export function createRedisStateStore(options: RedisStateStoreOptions): StateStore {
  const log = options.log ?? createLogger({ level: 'silent' });
  const redisOptions: RedisOptions = {
    // Queue commands only while the first connection is being made; once it is lost,
    // run() fails fast, and one failed reconnect flushes whatever was queued.
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(times * 100, 2000),
    connectTimeout: options.connectTimeoutMs ?? 5000,
    commandTimeout: options.commandTimeoutMs ?? 5000,
  };
  if (options.keyPrefix) redisOptions.keyPrefix = options.keyPrefix;
  const client = new Redis(options.url, redisOptions);
  client.defineCommand('vigilWrite', { lua: WRITE_LUA });
  client.defineCommand('vigilSetMany', { lua: SET_MANY_LUA });
  client.defineCommand('vigilClaim', { lua: CLAIM_LUA, numberOfKeys: 1 });
  client.defineCommand('vigilClaimFair', { lua: CLAIM_FAIR_LUA, numberOfKeys: 2 });
  client.defineCommand('vigilClaimRuns', { lua: CLAIM_RUNS_LUA, numberOfKeys: 4 });
  const scripts = client as unknown as ScriptCommands;

  let closed = false;
  let healthy = true;
  let everReady = false;
  let lastError = 'not connected';
  let downSince = 0;
  function lost(reason: string, error?: Error): void {
    lastError = reason;
    if (!healthy) return;
    healthy = false;
    downSince = Date.now();
    // Without a listener ioredis prints every failed reconnect; log each outage once instead.
    log.warn({ err: error, reason }, 'redis state store connection failed');
  }
  client.on('error', (error: Error) => lost(error.message, error));
  // A server shutting down closes the connection without an error; later reconnects then fail.
  client.on('close', () => {
    if (everReady && !closed) lost('the connection to Redis was closed');
  });
  client.on('ready', () => {
    if (!healthy && everReady) log.info({ downForMs: Date.now() - downSince }, 'redis state store connection restored');
    healthy = true;
    everReady = true;
  });

  async function run<T>(what: string, command: () => Promise<T>): Promise<T> {
    if (closed) throw new UnavailableError('The state store is closed');
    const status = client.status;
    // Once a connection was lost, a command must not wait in the offline queue for a reconnect
    // (several seconds of backoff): it fails at once, so a request answers 503 within its deadline.
    // Before the first connection the queue is kept, so start-up does not race the connect.
    if (status === 'reconnecting' || status === 'close' || status === 'end' || (everReady && !healthy)) {
      throw new UnavailableError(`Redis is unavailable (${what}): ${lastError}`);
    }
    try {
      return await command();
    } catch (error) {
      throw translate(error, what);
    }
  }

  return {
    async write(ops) {
      checkOps(ops);
      if (ops.length === 0) return;
      const keys = ops.map((op) => op.key);
      const args = ops.flatMap(opArgs);
      await run('write', () => scripts.vigilWrite(ops.length, ...keys, ...args));
    },

    get: (key) => run('get', () => client.get(key)),

    async getMany(keys) {
      if (keys.length === 0) return [];
      return run('getMany', () => client.mget(...keys));
    },

    async set(key, value, setOptions) {
      const ttl = checkTtl(setOptions?.ttlMs);
      await run('set', () => (ttl === undefined ? client.set(key, value) : client.set(key, value, 'PX', ttl)));
    },

    async setMany(keys, value, setOptions) {
      const ttl = checkTtl(setOptions?.ttlMs);
      const px = ttl === undefined ? '' : String(ttl);
      // Chunks keep each script call's arguments well below the engine's limit on spread arguments;
      // they are sent at once and pipelined on the one connection.
      const chunks: Promise<number>[] = [];
      for (let at = 0; at < keys.length; at += SET_MANY_CHUNK) {
        const chunk = keys.slice(at, at + SET_MANY_CHUNK);
        chunks.push(run('setMany', () => scripts.vigilSetMany(chunk.length, ...chunk, value, px)));
      }
      await Promise.all(chunks);
    },

    async setIfAbsent(key, value, setOptions) {
      const ttl = checkTtl(setOptions?.ttlMs);
      const reply = await run('setIfAbsent', () =>
        ttl === undefined ? client.set(key, value, 'NX') : client.set(key, value, 'PX', ttl, 'NX'),
      );
      return reply === 'OK';
    },

    async del(key) {
      await run('del', () => client.del(key));
    },

    hget: (key, field) => run('hget', () => client.hget(key, field)),

    hgetall: (key) => run('hgetall', () => client.hgetall(key)),

    async incr(key, by = 1, incrOptions) {
      checkInteger(by, 'by');
      const ttl = checkTtl(incrOptions?.ttlMs);
      if (ttl === undefined) return run('incr', () => client.incrby(key, by));
      // SET NX PX creates the counter at 0 with its TTL only when absent; INCRBY keeps the TTL.
      const results = await run('incr', () => client.multi().set(key, '0', 'PX', ttl, 'NX').incrby(key, by).exec());
      if (!results) throw new UnavailableError('Redis aborted the incr transaction');
      for (const [error] of results) if (error) throw translate(error, 'incr');
      return Number(results[1]?.[1]);
    },

    async ttlMs(key) {
      const remaining = await run('ttlMs', () => client.pttl(key));
      return remaining < 0 ? null : remaining;
    },

    zcard: (key) => run('zcard', () => client.zcard(key)),

    async zscore(key, member) {
      const score = await run('zscore', () => client.zscore(key, member));
      return score === null ? null : parseScore(score);
    },

    async zrange(key, start, stop) {
      checkInteger(start, 'start');
      checkInteger(stop, 'stop');
      return pairs(await run('zrange', () => client.zrange(key, String(start), String(stop), 'WITHSCORES')));
    },

    async zrangeByScore(key, min, max, limit) {
      const low = formatBound(checkBound(min, 'min'));
      const high = formatBound(checkBound(max, 'max'));
      if (limit === undefined)
        return pairs(await run('zrangeByScore', () => client.zrangebyscore(key, low, high, 'WITHSCORES')));
      if (checkInteger(limit, 'limit', 0) === 0) return [];
      return pairs(
        await run('zrangeByScore', () => client.zrangebyscore(key, low, high, 'WITHSCORES', 'LIMIT', 0, limit)),
      );
    },

    async claimDue(key, now, leaseMs, limit) {
      checkScore(now, 'now');
      checkScore(leaseMs, 'leaseMs');
      if (checkInteger(limit, 'limit', 0) === 0) return [];
      const leaseEnd = String(checkScore(now + leaseMs, 'now + leaseMs'));
      return pairs(await run('claimDue', () => scripts.vigilClaim(key, String(now), leaseEnd, String(limit))));
    },

    async claimDueFair(key, groupsKey, now, leaseMs, limit, scan) {
      checkScore(now, 'now');
      checkScore(leaseMs, 'leaseMs');
      if (checkInteger(limit, 'limit', 0) === 0) return [];
      const window = Math.min(MAX_FAIR_SCAN, Math.max(limit, checkInteger(scan, 'scan', 0)));
      const leaseEnd = String(checkScore(now + leaseMs, 'now + leaseMs'));
      return pairs(
        await run('claimDueFair', () =>
          scripts.vigilClaimFair(key, groupsKey, String(now), leaseEnd, String(limit), String(window)),
        ),
      );
    },

    async claimDueRuns(key, groupsKey, now, leaseMs, limit, scan, rule) {
      checkScore(now, 'now');
      checkScore(leaseMs, 'leaseMs');
      checkScore(rule.since, 'since');
      if (checkInteger(limit, 'limit', 0) === 0) return { claimed: [], skipped: 0 };
      const window = Math.min(MAX_FAIR_SCAN, Math.max(limit, checkInteger(scan, 'scan', 0)));
      const leaseEnd = String(checkScore(now + leaseMs, 'now + leaseMs'));
      const reply = await run('claimDueRuns', () =>
        scripts.vigilClaimRuns(
          ...[key, groupsKey, rule.slotPrefix, rule.skipsKey],
          ...[String(now), leaseEnd, String(limit), String(window), String(leaseMs), String(rule.since)],
          rule.spareListed ? '1' : '0',
          rule.lateCapMs === undefined ? '' : String(checkScore(rule.lateCapMs, 'lateCapMs')),
          ...rule.groups,
        ),
      );
      const claimed: ClaimedRun[] = [];
      for (let i = 0; i + 2 < reply.length; i += 3)
        claimed.push({
          member: String(reply[i]),
          score: parseScore(String(reply[i + 1])),
          slot: reply[i + 2] === '' ? null : String(reply[i + 2]),
        });
      return { claimed, skipped: Number(reply.at(-1) ?? 0) };
    },

    async deletePrefix(prefix) {
      // SCAN matches raw key names: ioredis applies keyPrefix to commands, not to the MATCH pattern.
      const own = options.keyPrefix ?? '';
      const pattern = (own + prefix).replace(/[*?[\]\\]/g, '\\$&') + '*';
      let cursor = '0';
      let deleted = 0;
      do {
        const [next, found] = await run('deletePrefix', () => client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000));
        cursor = next;
        if (found.length > 0)
          deleted += await run('deletePrefix', () => client.unlink(...found.map((key) => key.slice(own.length))));
      } while (cursor !== '0');
      return deleted;
    },

    async ping() {
      await run('ping', () => client.ping());
    },

    async close() {
      if (closed) return;
      closed = true;
      if (client.status !== 'ready') {
        client.disconnect();
        return;
      }
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
}
