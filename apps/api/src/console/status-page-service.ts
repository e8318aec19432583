import { NotFoundError } from '#core';
import {
  statusPageDecider,
  statusPageSlugDecider,
  streamNames,
  type StatusPage,
  type StatusPageCommand,
  type StatusPageInput,
  type StatusPageSlugCommand,
} from '#domain';
import { StatusPageReads, type ReadModels, type StatusPageView } from '#readmodels';
import type { StateStore } from '#statestore';
import type { Access } from '../access.ts';
import type { CommandRunner } from '../commands.ts';
import { newId } from '../request-context.ts';

/**
 * Status pages: an event-sourced aggregate plus a slug reservation stream per slug, so two
 * accounts cannot both take one slug (the second append on the reservation stream conflicts).
 */
export class StatusPageService {
  readonly reads: StatusPageReads;

  constructor(
    private readonly commands: CommandRunner,
    private readonly readModels: ReadModels,
    store: StateStore,
  ) {
    this.reads = new StatusPageReads(store);
  }

  async list(access: Access): Promise<StatusPage[]> {
    return (await this.reads.pages(access.accountId)).map((view) => view.page);
  }

  async get(access: Access, id: string): Promise<StatusPage> {
    return (await this.own(access, id)).page;
  }

  async create(access: Access, input: StatusPageInput): Promise<StatusPage> {
    const knownCheckIds = await this.knownChecks(access, input.checkIds);
    const pageId = newId();
    const command = (): StatusPageCommand => ({
      type: 'CreateStatusPage',
      pageId,
      accountId: access.accountId,
      page: input,
      knownCheckIds,
      now: this.commands.now(),
      actor: access.actor,
    });
    // Decided once before the slug is reserved: a page that would be refused never takes a slug.
    statusPageDecider.decide(command(), statusPageDecider.initialState());
    const outcome = await this.withSlug(access, input.slug, pageId, () =>
      this.commands.run(statusPageDecider, streamNames.statusPage(pageId), command, this.meta(access)),
    );
    return (outcome.state as StatusPageView).page;
  }

  async update(access: Access, id: string, input: StatusPageInput): Promise<StatusPage> {
    const current = await this.own(access, id);
    const knownCheckIds = await this.knownChecks(access, input.checkIds);
    const oldSlug = current.page.slug;
    const command = (): StatusPageCommand => ({
      type: 'UpdateStatusPage',
      pageId: id,
      accountId: access.accountId,
      page: input,
      knownCheckIds,
      now: this.commands.now(),
      actor: access.actor,
    });
    const update = () => this.commands.run(statusPageDecider, streamNames.statusPage(id), command, this.meta(access));
    if (input.slug === oldSlug) return ((await update()).state as StatusPageView).page;
    statusPageDecider.decide(command(), current);
    const outcome = await this.withSlug(access, input.slug, id, update);
    await this.slug(access, 'ReleaseStatusPageSlug', oldSlug, id);
    return (outcome.state as StatusPageView).page;
  }

  async delete(access: Access, id: string): Promise<void> {
    const current = await this.own(access, id);
    await this.commands.run(
      statusPageDecider,
      streamNames.statusPage(id),
      (): StatusPageCommand => ({
        type: 'DeleteStatusPage',
        pageId: id,
        accountId: access.accountId,
        now: this.commands.now(),
        actor: access.actor,
      }),
      this.meta(access),
    );
    await this.slug(access, 'ReleaseStatusPageSlug', current.page.slug, id);
  }

  private async own(access: Access, id: string): Promise<StatusPageView> {
    const view = await this.reads.page(id);
    if (view === null || view.accountId !== access.accountId) throw new NotFoundError(`Status page ${id} not found`);
    return view;
  }

  private async knownChecks(access: Access, ids: readonly string[]): Promise<string[]> {
    const checks = await this.readModels.checksByIds([...ids]);
    return checks.filter((view) => view.accountId === access.accountId).map((view) => view.check.id);
  }

  /**
   * Reserves the slug for the page, then writes the page; a write that fails gives the slug back,
   * so a refused create or rename never keeps a slug from every other account.
   */
  private async withSlug<T>(access: Access, slug: string, pageId: string, write: () => Promise<T>): Promise<T> {
    await this.slug(access, 'ReserveStatusPageSlug', slug, pageId);
    try {
      return await write();
    } catch (error) {
      // The write's error is the answer; a failed release leaves the slug as it was before this fix.
      await this.slug(access, 'ReleaseStatusPageSlug', slug, pageId).catch(() => undefined);
      throw error;
    }
  }

  private async slug(access: Access, type: StatusPageSlugCommand['type'], slug: string, pageId: string) {
    await this.commands.run(
      statusPageSlugDecider,
      streamNames.statusPageSlug(slug),
      (): StatusPageSlugCommand => ({ type, slug, pageId, now: this.commands.now(), actor: access.actor }),
      this.meta(access),
    );
  }

  private meta(access: Access) {
    return { accountId: access.accountId, actor: access.actor };
  }
}
