import { randomBytes, randomUUID } from 'node:crypto';
import { NotFoundError, sha256Hex } from '#core';
import {
  PRIVATE_LOCATION_KEY_PREFIX,
  privateLocationDecider,
  streamNames,
  type PrivateLocationCommand,
  type PrivateLocationInput,
  type PrivateLocationKey,
} from '#domain';
import { PrivateLocationReads, type PrivateLocationView, type ReadModels } from '#readmodels';
import { queueKeys } from '#scheduling';
import type { StateStore } from '#statestore';
import type { Access } from '../access.ts';
import type { CommandRunner } from '../commands.ts';
import { newId } from '../request-context.ts';
import type { AgentPresence, AgentSeen } from './agent-presence.ts';
import { privateQueueName } from './agent-work.ts';

export interface PrivateLocationKeyJson {
  id: string;
  /** The key with all but its last four characters hidden. */
  maskedKey: string;
  createdAt: string;
}

export interface PrivateLocationJson {
  id: string;
  name: string;
  slugName: string;
  icon: string | null;
  keys: PrivateLocationKeyJson[];
  agents: AgentSeen[];
  agentCount: number;
  /** When an agent last polled; null when none ever did. */
  lastSeen: string | null;
  status: 'AVAILABLE' | 'UNAVAILABLE';
  createdAt: string;
  updatedAt: string;
}

/** A newly minted key: rawKey is shown this once. */
export type MintedKeyJson = PrivateLocationKeyJson & { rawKey: string };

const masked = (key: Pick<PrivateLocationKey, 'last4'>) =>
  `${PRIVATE_LOCATION_KEY_PREFIX}${'*'.repeat(39)}${key.last4}`;

/** A new location key: the prefix and 32 random bytes. Only its sha256 is kept. */
export function generatePrivateLocationKey(): string {
  return PRIVATE_LOCATION_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** Private locations: an event-sourced aggregate per location, its keys, and the agents seen polling it. */
export class PrivateLocationService {
  readonly reads: PrivateLocationReads;

  constructor(
    private readonly commands: CommandRunner,
    private readonly readModels: ReadModels,
    private readonly store: StateStore,
    readonly presence: AgentPresence,
    private readonly publicLocations: readonly string[],
  ) {
    this.reads = new PrivateLocationReads(store);
  }

  async list(access: Access, page: { limit: number; page: number }) {
    const all = await this.reads.locations(access.accountId);
    const start = (page.page - 1) * page.limit;
    const items = await Promise.all(all.slice(start, start + page.limit).map((view) => this.present(view)));
    return { items, total: all.length };
  }

  async get(access: Access, id: string): Promise<PrivateLocationJson> {
    return this.present(await this.own(access, id));
  }

  /** The slugs of the account's private locations: what checks may list beside the runner locations. */
  async slugs(accountId: string): Promise<string[]> {
    return (await this.reads.locations(accountId)).map((view) => view.location.slugName);
  }

  async create(access: Access, input: PrivateLocationInput): Promise<PrivateLocationJson> {
    const locationId = newId();
    const takenSlugs = await this.slugs(access.accountId);
    const outcome = await this.run(access, locationId, () => ({
      type: 'CreatePrivateLocation',
      location: input,
      takenSlugs,
      publicLocations: this.publicLocations,
    }));
    return this.present(outcome as PrivateLocationView);
  }

  async update(access: Access, id: string, input: PrivateLocationInput): Promise<PrivateLocationJson> {
    const current = await this.own(access, id);
    const takenSlugs = (await this.reads.locations(access.accountId))
      .filter((view) => view.location.id !== id)
      .map((view) => view.location.slugName);
    const slugInUse = await this.slugInUse(access.accountId, current.location.slugName);
    const outcome = await this.run(access, id, () => ({
      type: 'UpdatePrivateLocation',
      location: input,
      takenSlugs,
      publicLocations: this.publicLocations,
      slugInUse,
    }));
    return this.present(outcome as PrivateLocationView);
  }

  async delete(access: Access, id: string): Promise<void> {
    await this.own(access, id);
    await this.run(access, id, () => ({ type: 'DeletePrivateLocation' }));
    // Its keys stopped with the event; its queue and presence go too (a retry finds nothing left to do).
    const queue = queueKeys(privateQueueName(id));
    await this.store.del(queue.due);
    await this.store.deletePrefix(queue.slot(''));
    await this.presence.forget(id);
  }

  async addKey(access: Access, id: string, fresh = false): Promise<MintedKeyJson> {
    await this.own(access, id);
    const keyId = fresh ? randomUUID() : newId();
    const rawKey = generatePrivateLocationKey();
    const { replayed, state } = await this.runOutcome(access, id, () => ({
      type: 'AddPrivateLocationKey',
      keyId,
      hash: sha256Hex(rawKey),
      last4: rawKey.slice(-4),
    }));
    // A retried request whose first answer was lost: only the first key's hash was kept, so mint another.
    if (replayed) return this.addKey(access, id, true);
    const key = (state as PrivateLocationView).keys.find((k) => k.id === keyId);
    if (!key) throw new NotFoundError(`key ${keyId} not found`);
    return { id: key.id, rawKey, maskedKey: masked(key), createdAt: key.createdAt };
  }

  async revokeKey(access: Access, id: string, keyId: string): Promise<void> {
    await this.own(access, id);
    await this.run(access, id, () => ({ type: 'RevokePrivateLocationKey', keyId }));
  }

  private async slugInUse(accountId: string, slug: string): Promise<boolean> {
    if ((await this.readModels.checks(accountId)).some((view) => view.check.locations.includes(slug))) return true;
    return (await this.readModels.checkGroups(accountId)).some((view) =>
      ((view.group as { locations?: string[] }).locations ?? []).includes(slug),
    );
  }

  private async present(view: PrivateLocationView): Promise<PrivateLocationJson> {
    const { location } = view;
    const agents = await this.presence.agents(location.id);
    const lastSeen = agents.reduce<string | null>(
      (max, a) => (max === null || a.lastSeen > max ? a.lastSeen : max),
      null,
    );
    return {
      id: location.id,
      name: location.name,
      slugName: location.slugName,
      icon: location.icon,
      keys: view.keys.map((key) => ({ id: key.id, maskedKey: masked(key), createdAt: key.createdAt })),
      agents,
      agentCount: agents.filter((a) => this.presence.isRecent(a)).length,
      lastSeen,
      status: this.presence.statusOf(agents),
      createdAt: location.createdAt,
      updatedAt: location.updatedAt,
    };
  }

  private async own(access: Access, id: string): Promise<PrivateLocationView> {
    const view = await this.reads.location(id);
    if (view === null || view.accountId !== access.accountId)
      throw new NotFoundError(`Private location ${id} not found`);
    return view;
  }

  private async run(
    access: Access,
    locationId: string,
    command: () => Record<string, unknown> & { type: PrivateLocationCommand['type'] },
  ): Promise<unknown> {
    return (await this.runOutcome(access, locationId, command)).state;
  }

  private runOutcome(
    access: Access,
    locationId: string,
    command: () => Record<string, unknown> & { type: PrivateLocationCommand['type'] },
  ) {
    return this.commands.run(
      privateLocationDecider,
      streamNames.privateLocation(locationId),
      () =>
        ({
          ...command(),
          locationId,
          accountId: access.accountId,
          now: this.commands.now(),
          actor: access.actor,
        }) as PrivateLocationCommand,
      { accountId: access.accountId, actor: access.actor },
    );
  }
}
