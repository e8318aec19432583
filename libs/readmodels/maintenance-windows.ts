import type { MaintenanceWindow, MaintenanceWindowState } from '#domain';
import type { StateStore } from '#statestore';
import { keys } from './keys.ts';

export type MaintenanceWindowView = Extract<MaintenanceWindowState, { status: 'active' }>;

function activeWindow(raw: string | null): MaintenanceWindowView | null {
  if (raw === null) return null;
  const doc = JSON.parse(raw) as MaintenanceWindowState;
  return doc.status === 'active' ? doc : null;
}

/** Maintenance windows by id and by account (oldest first). */
export class MaintenanceWindowReads {
  constructor(private readonly store: StateStore) {}

  async window(id: string): Promise<MaintenanceWindowView | null> {
    return activeWindow(await this.store.get(keys.doc('maintenance-window', id)));
  }

  async windows(accountId: string): Promise<MaintenanceWindow[]> {
    const ids = (await this.store.zrange(keys.accountMaintenanceWindows(accountId), 0, -1)).map((m) => m.member);
    if (ids.length === 0) return [];
    const docs = await this.store.getMany(ids.map((id) => keys.doc('maintenance-window', id)));
    return docs
      .map(activeWindow)
      .filter((doc): doc is MaintenanceWindowView => doc !== null)
      .map((doc) => doc.window);
  }
}
