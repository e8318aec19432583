import type { StatusPageState } from '#domain';
import type { StateStore } from '#statestore';
import { keys } from './keys.ts';

export type StatusPageView = Extract<StatusPageState, { status: 'active' }>;

function activePage(raw: string | null): StatusPageView | null {
  if (raw === null) return null;
  const doc = JSON.parse(raw) as StatusPageState;
  return doc.status === 'active' ? doc : null;
}

/** Status pages by id, by account (oldest first) and by slug (the public URL's only key). */
export class StatusPageReads {
  constructor(private readonly store: StateStore) {}

  async page(id: string): Promise<StatusPageView | null> {
    return activePage(await this.store.get(keys.doc('status-page', id)));
  }

  async pages(accountId: string): Promise<StatusPageView[]> {
    const ids = (await this.store.zrange(keys.accountStatusPages(accountId), 0, -1)).map((m) => m.member);
    const docs = await this.store.getMany(ids.map((id) => keys.doc('status-page', id)));
    return docs.map(activePage).filter((doc): doc is StatusPageView => doc !== null);
  }

  async pageBySlug(slug: string): Promise<StatusPageView | null> {
    const id = await this.store.get(keys.statusPageBySlug(slug));
    if (id === null) return null;
    const page = await this.page(id);
    // A renamed page keeps its old reservation only until released; the page's own slug decides.
    return page?.page.slug === slug ? page : null;
  }
}
