import { NotFoundError } from '#core';
import {
  maintenanceWindowDecider,
  occurrenceAt,
  streamNames,
  type MaintenanceWindow,
  type MaintenanceWindowCommand,
  type MaintenanceWindowInput,
} from '#domain';
import { MaintenanceWindowReads, type MaintenanceWindowView, type ReadModels } from '#readmodels';
import type { StateStore } from '#statestore';
import type { Access } from '../access.ts';
import type { CommandRunner } from '../commands.ts';
import { newId } from '../request-context.ts';

/** A window as the API shows it: the stored fields and whether it is in force right now. */
export type MaintenanceWindowJson = MaintenanceWindow & { activeNow: boolean };

/** Maintenance windows: an event-sourced aggregate per window, read back from the control-plane read model. */
export class MaintenanceWindowService {
  readonly reads: MaintenanceWindowReads;

  constructor(
    private readonly commands: CommandRunner,
    private readonly readModels: ReadModels,
    store: StateStore,
  ) {
    this.reads = new MaintenanceWindowReads(store);
  }

  async list(access: Access, page: { limit: number; page: number }) {
    const all = await this.reads.windows(access.accountId);
    const start = (page.page - 1) * page.limit;
    return { items: all.slice(start, start + page.limit).map((w) => this.present(w)), total: all.length };
  }

  async get(access: Access, id: string): Promise<MaintenanceWindowJson> {
    return this.present((await this.own(access, id)).window);
  }

  async create(access: Access, input: MaintenanceWindowInput): Promise<MaintenanceWindowJson> {
    const windowId = newId();
    const knownCheckIds = await this.knownChecks(access, input.checkIds ?? []);
    const outcome = await this.commands.run(
      maintenanceWindowDecider,
      streamNames.maintenanceWindow(windowId),
      (): MaintenanceWindowCommand => ({
        type: 'CreateMaintenanceWindow',
        windowId,
        accountId: access.accountId,
        window: input,
        knownCheckIds,
        now: this.commands.now(),
        actor: access.actor,
      }),
      this.meta(access),
    );
    return this.present((outcome.state as MaintenanceWindowView).window);
  }

  async update(access: Access, id: string, input: MaintenanceWindowInput): Promise<MaintenanceWindowJson> {
    await this.own(access, id);
    const knownCheckIds = await this.knownChecks(access, input.checkIds ?? []);
    const outcome = await this.commands.run(
      maintenanceWindowDecider,
      streamNames.maintenanceWindow(id),
      (): MaintenanceWindowCommand => ({
        type: 'UpdateMaintenanceWindow',
        windowId: id,
        accountId: access.accountId,
        window: input,
        knownCheckIds,
        now: this.commands.now(),
        actor: access.actor,
      }),
      this.meta(access),
    );
    return this.present((outcome.state as MaintenanceWindowView).window);
  }

  async delete(access: Access, id: string): Promise<void> {
    await this.own(access, id);
    await this.commands.run(
      maintenanceWindowDecider,
      streamNames.maintenanceWindow(id),
      (): MaintenanceWindowCommand => ({
        type: 'DeleteMaintenanceWindow',
        windowId: id,
        accountId: access.accountId,
        now: this.commands.now(),
        actor: access.actor,
      }),
      this.meta(access),
    );
  }

  private present(window: MaintenanceWindow): MaintenanceWindowJson {
    return { ...window, activeNow: occurrenceAt(window, Date.parse(this.commands.now())) !== null };
  }

  private async own(access: Access, id: string): Promise<MaintenanceWindowView> {
    const view = await this.reads.window(id);
    if (view === null || view.accountId !== access.accountId)
      throw new NotFoundError(`Maintenance window ${id} not found`);
    return view;
  }

  private async knownChecks(access: Access, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const checks = await this.readModels.checksByIds([...ids]);
    return checks.filter((view) => view.accountId === access.accountId).map((view) => view.check.id);
  }

  private meta(access: Access) {
    return { accountId: access.accountId, actor: access.actor };
  }
}
