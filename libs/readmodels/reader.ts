import type {
  AccountState,
  AlertChannelState,
  ApiKeyState,
  CheckGroupState,
  CheckState,
  UserState,
  VariableState,
} from '#domain';
import type { StateStore } from '#statestore';
import { keys, type Aggregate } from './keys.ts';

type Active<S> = Extract<S, { status: 'active' }>;
export type AccountView = Active<AccountState>;
export type UserView = Extract<UserState, { status: 'registered' }>;
export type ApiKeyView = Exclude<ApiKeyState, { status: 'absent' }>;
export type VariableView = Active<VariableState>;
export type CheckView = Active<CheckState>;
export type CheckGroupView = Active<CheckGroupState>;
export type AlertChannelView = Active<AlertChannelState>;

export interface Page {
  limit: number;
  page: number;
}

export interface Paged<T> {
  items: T[];
  total: number;
}

/**
 * Queries over the read models. Documents are written only by the projection, from validated
 * events, so they are parsed without a second validation on this hot path.
 */
export class ReadModels {
  constructor(private readonly store: StateStore) {}

  async account(id: string): Promise<AccountView | null> {
    return this.active<AccountView>('account', id);
  }

  async accounts(ids: string[]): Promise<AccountView[]> {
    const docs = await this.store.getMany(ids.map((id) => keys.doc('account', id)));
    return docs.map(parse<AccountState>).filter((doc): doc is AccountView => doc?.status === 'active');
  }

  async user(id: string): Promise<UserView | null> {
    const doc = parse<UserState>(await this.store.get(keys.doc('user', id)));
    return doc?.status === 'registered' ? doc : null;
  }

  async userIdByEmail(email: string): Promise<string | null> {
    return this.store.get(keys.userByEmail(email));
  }

  async members(accountId: string): Promise<UserView[]> {
    const ids = (await this.store.zrange(keys.accountMembers(accountId), 0, -1)).map((m) => m.member);
    const docs = await this.store.getMany(ids.map((id) => keys.doc('user', id)));
    return docs
      .map(parse<UserState>)
      .filter((doc): doc is UserView => doc?.status === 'registered' && accountId in doc.memberships);
  }

  async apiKey(id: string): Promise<ApiKeyView | null> {
    const doc = parse<ApiKeyState>(await this.store.get(keys.doc('api-key', id)));
    return doc && doc.status !== 'absent' ? doc : null;
  }

  /** The active key with this hash; revoked keys drop out of the hash index. */
  async apiKeyByHash(hash: string): Promise<Extract<ApiKeyView, { status: 'active' }> | null> {
    const id = await this.store.get(keys.apiKeyByHash(hash));
    if (id === null) return null;
    const doc = await this.apiKey(id);
    return doc?.status === 'active' ? doc : null;
  }

  async userApiKeys(userId: string): Promise<ApiKeyView[]> {
    return this.listed<ApiKeyView>(keys.userApiKeys(userId), 'api-key');
  }

  async serviceApiKeys(accountId: string): Promise<ApiKeyView[]> {
    return this.listed<ApiKeyView>(keys.accountServiceKeys(accountId), 'api-key');
  }

  async variable(accountId: string, key: string): Promise<VariableView | null> {
    return this.active<VariableView>('variable', `${accountId}-${key}`);
  }

  /** Sorted by key (the index scores every key 0, so members sort by name). */
  async variables(accountId: string, page?: Page): Promise<Paged<VariableView>> {
    const index = keys.accountVariables(accountId);
    const total = await this.store.zcard(index);
    const [start, stop] = page ? [(page.page - 1) * page.limit, page.page * page.limit - 1] : [0, -1];
    const members = await this.store.zrange(index, start, stop);
    const docs = await this.store.getMany(members.map((m) => keys.doc('variable', `${accountId}-${m.member}`)));
    return {
      items: docs.map(parse<VariableState>).filter((doc): doc is VariableView => doc?.status === 'active'),
      total,
    };
  }

  async variableCount(accountId: string): Promise<number> {
    return this.store.zcard(keys.accountVariables(accountId));
  }

  async check(id: string): Promise<CheckView | null> {
    return this.active<CheckView>('check', id);
  }

  /** The heartbeat check whose ping URL carries token, if it is still active. */
  async checkByPingToken(token: string): Promise<CheckView | null> {
    const checkId = await this.store.get(keys.heartbeatToken(token));
    return checkId === null ? null : this.check(checkId);
  }

  /** The check ids behind ping tokens, in one round trip, in the order given (null: unknown token). */
  async checkIdsByPingTokens(tokens: string[]): Promise<(string | null)[]> {
    return this.store.getMany(tokens.map((token) => keys.heartbeatToken(token)));
  }

  /** Active checks among ids, in one round trip. */
  async checksByIds(ids: string[]): Promise<CheckView[]> {
    const docs = await this.store.getMany(ids.map((id) => keys.doc('check', id)));
    return docs.map(parse<CheckState>).filter((doc): doc is CheckView => doc?.status === 'active');
  }

  /** Oldest first, in creation order. */
  async checks(accountId: string): Promise<CheckView[]> {
    return this.listed<CheckView>(keys.accountChecks(accountId), 'check');
  }

  async groupCheckCount(groupId: string): Promise<number> {
    return this.store.zcard(keys.groupChecks(groupId));
  }

  /** The active checks of a group, in one round trip after the index. */
  async groupChecks(groupId: string): Promise<CheckView[]> {
    const members = await this.store.zrange(keys.groupChecks(groupId), 0, -1);
    return this.checksByIds(members.map((m) => m.member));
  }

  /** The group whose trigger token has this sha256 (hex), if the group and its trigger are active. */
  async checkGroupByTriggerDigest(digest: string): Promise<CheckGroupView | null> {
    const groupId = await this.store.get(keys.groupTriggerByDigest(digest));
    return groupId === null ? null : this.checkGroup(groupId);
  }

  async checkGroup(id: string): Promise<CheckGroupView | null> {
    return this.active<CheckGroupView>('check-group', id);
  }

  async checkGroups(accountId: string): Promise<CheckGroupView[]> {
    return this.listed<CheckGroupView>(keys.accountGroups(accountId), 'check-group');
  }

  async alertChannel(id: string): Promise<AlertChannelView | null> {
    return this.active<AlertChannelView>('alert-channel', id);
  }

  async alertChannels(accountId: string): Promise<AlertChannelView[]> {
    return this.listed<AlertChannelView>(keys.accountChannels(accountId), 'alert-channel');
  }

  /** Channels subscribed to the check directly or through its group. */
  async channelsFor(checkId: string, groupId: string | null): Promise<AlertChannelView[]> {
    const direct = await this.store.zrange(keys.checkChannels(checkId), 0, -1);
    const viaGroup = groupId ? await this.store.zrange(keys.groupChannels(groupId), 0, -1) : [];
    const ids = [...new Set([...direct, ...viaGroup].map((m) => m.member))];
    const docs = await this.store.getMany(ids.map((id) => keys.doc('alert-channel', id)));
    return docs.map(parse<AlertChannelState>).filter((doc): doc is AlertChannelView => doc?.status === 'active');
  }

  private async active<T>(aggregate: Aggregate, id: string): Promise<T | null> {
    const doc = parse<{ status: string }>(await this.store.get(keys.doc(aggregate, id)));
    return doc?.status === 'active' ? (doc as T) : null;
  }

  private async listed<T>(index: string, aggregate: Aggregate): Promise<T[]> {
    const ids = (await this.store.zrange(index, 0, -1)).map((m) => m.member);
    const docs = await this.store.getMany(ids.map((id) => keys.doc(aggregate, id)));
    return docs
      .map(parse<{ status: string }>)
      .filter((doc) => doc !== null && doc.status !== 'absent' && doc.status !== 'deleted') as T[];
  }
}

function parse<T>(raw: string | null): T | null {
  return raw === null ? null : (JSON.parse(raw) as T);
}
