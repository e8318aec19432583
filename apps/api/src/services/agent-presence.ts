import { z } from 'zod';
import { AGENT_LOCATIONS_KEY } from '#notify';
import type { StateStore } from '#statestore';

/** One agent as the location's GET shows it. */
export interface AgentSeen {
  /** The id the agent process drew at start; a restarted agent is a new one. */
  id: string;
  version: string;
  lastSeen: string;
  /** Runs it held when it last polled. */
  inFlight: number;
}

const seenSchema = z.object({ version: z.string(), inFlight: z.int().min(0), lastSeen: z.string() });

/** Agents not seen for this long drop off the list. */
const FORGET_AFTER_MS = 24 * 3_600_000;
/** An agent's presence is written at most this often per API process (lastSeen is this precise). */
const WRITE_EVERY_MS = 2_000;

const presenceKeys = {
  agents: (locationId: string) => `agents:${locationId}`,
  agent: (locationId: string, agentId: string) => `agents:${locationId}:${agentId}`,
};

/**
 * Which agents poll a private location, from the state store so every API replica agrees. A
 * location is AVAILABLE while an agent was seen within unavailableAfterMs (10 minutes by default).
 */
export class AgentPresence {
  constructor(
    private readonly store: StateStore,
    readonly unavailableAfterMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** When this process last wrote each agent: a busy agent polls many times a second. */
  private readonly written = new Map<string, number>();

  async seen(locationId: string, agent: { id: string; version: string; inFlight: number }): Promise<void> {
    const now = this.clock();
    const key = `${locationId}:${agent.id}`;
    if ((this.written.get(key) ?? 0) > now - WRITE_EVERY_MS) return;
    this.written.set(key, now);
    if (this.written.size > 10_000)
      for (const [k, at] of this.written) if (at <= now - WRITE_EVERY_MS) this.written.delete(k);
    const doc = { version: agent.version, inFlight: agent.inFlight, lastSeen: new Date(now).toISOString() };
    await this.store.write([
      { op: 'zadd', key: presenceKeys.agents(locationId), member: agent.id, score: now },
      // What the dispatcher's location watch reads to alert when the location goes dark.
      { op: 'zadd', key: AGENT_LOCATIONS_KEY, member: locationId, score: now },
      { op: 'set', key: presenceKeys.agent(locationId, agent.id), value: JSON.stringify(doc), ttlMs: FORGET_AFTER_MS },
    ]);
  }

  /** Drops a deleted location's agents. */
  async forget(locationId: string): Promise<void> {
    await this.store.deletePrefix(presenceKeys.agent(locationId, ''));
    await this.store.write([
      { op: 'del', key: presenceKeys.agents(locationId) },
      { op: 'zrem', key: AGENT_LOCATIONS_KEY, member: locationId },
    ]);
  }

  /** Agents seen within the last day, most recent first. */
  async agents(locationId: string): Promise<AgentSeen[]> {
    const since = this.clock() - FORGET_AFTER_MS;
    const members = await this.store.zrangeByScore(presenceKeys.agents(locationId), since, Number.MAX_SAFE_INTEGER);
    if (members.length === 0) return [];
    const docs = await this.store.getMany(members.map((m) => presenceKeys.agent(locationId, m.member)));
    const agents: AgentSeen[] = [];
    members.forEach((m, i) => {
      const parsed = seenSchema.safeParse(JSON.parse(docs[i] ?? 'null'));
      if (parsed.success) agents.push({ id: m.member, ...parsed.data });
    });
    return agents.sort((a, b) => (a.lastSeen < b.lastSeen ? 1 : -1));
  }

  /** When the location's most recent agent polled (ms), or null. */
  async lastSeenMs(locationId: string): Promise<number | null> {
    const members = await this.store.zrange(presenceKeys.agents(locationId), -1, -1);
    return members[0]?.score ?? null;
  }

  isRecent(agent: Pick<AgentSeen, 'lastSeen'>): boolean {
    return Date.parse(agent.lastSeen) >= this.clock() - this.unavailableAfterMs;
  }

  statusOf(agents: readonly AgentSeen[]): 'AVAILABLE' | 'UNAVAILABLE' {
    return agents.some((agent) => this.isRecent(agent)) ? 'AVAILABLE' : 'UNAVAILABLE';
  }
}
