import type { PrivateLocationState } from '#domain';
import type { StateStore } from '#statestore';
import { keys } from './keys.ts';

export type PrivateLocationView = Extract<PrivateLocationState, { status: 'active' }>;

function activeLocation(raw: string | null): PrivateLocationView | null {
  if (raw === null) return null;
  const doc = JSON.parse(raw) as PrivateLocationState;
  return doc.status === 'active' ? doc : null;
}

/** Private locations by id, by account (oldest first) and by the hash of a live key. */
export class PrivateLocationReads {
  constructor(private readonly store: StateStore) {}

  async location(id: string): Promise<PrivateLocationView | null> {
    return activeLocation(await this.store.get(keys.doc('private-location', id)));
  }

  async locations(accountId: string): Promise<PrivateLocationView[]> {
    const ids = (await this.store.zrange(keys.accountPrivateLocations(accountId), 0, -1)).map((m) => m.member);
    if (ids.length === 0) return [];
    const docs = await this.store.getMany(ids.map((id) => keys.doc('private-location', id)));
    return docs.map(activeLocation).filter((doc): doc is PrivateLocationView => doc !== null);
  }

  /** The location and key a key's sha256 opens; null once the key is revoked or its location deleted. */
  async byKeyHash(hash: string): Promise<{ location: PrivateLocationView; keyId: string } | null> {
    const ref = await this.store.get(keys.privateLocationKeyByHash(hash));
    if (ref === null) return null;
    const [locationId, keyId] = ref.split(':') as [string, string];
    const location = await this.location(locationId);
    if (!location || !location.keys.some((key) => key.id === keyId && key.hash === hash)) return null;
    return { location, keyId };
  }
}
