import {
  heartbeatTimes,
  isManagedCheck,
  maintenanceAt,
  maintenanceWindowEvents,
  parseCheckEvent,
  parseCheckGroupEvent,
  privateLocationEvents,
  silenceTimes,
  type Check,
  type MaintenanceWindow,
} from '#domain';
import type { RecordedEvent } from '#eventstore';
import { noDataWatcher } from './no-data.ts';

/** How a check is scheduled at one location; null when it does not run there. */
export type Placement =
  | { kind: 'run'; frequencyMs: number }
  /** A heartbeat watches pings; with watch 'results', an external check's results (its NO_DATA alerts). */
  | { kind: 'heartbeat'; periodMs: number; graceMs: number; watch?: 'results' };

export interface CatalogueEntry {
  checkId: string;
  accountId: string;
  /** Null once deleted: kept as a tombstone, so a stale queue entry is recognised and dropped. */
  check: Check | null;
}

export interface ScheduleChange {
  checkId: string;
  eventId: string;
  /** When the change was made (the event's time): fresh schedules start from here, on every replica alike. */
  atMs: number;
  placement: Placement | null;
}

const CHECK_EVENTS = new Set(['CheckCreated', 'CheckUpdated', 'CheckDeleted', 'HeartbeatTokenRotated']);
const STREAM_PREFIX = 'check-';
const WINDOW_STREAM_PREFIX = 'maintenance-window-';
const GROUP_STREAM_PREFIX = 'check-group-';
const PRIVATE_LOCATION_STREAM_PREFIX = 'private-location-';

/**
 * Where a check runs. It runs from each of its locations, or from the default location when it
 * names none. A heartbeat has one stream of pings, so one location watches it: its first. External
 * checks (no definition; MULTI_STEP and PLAYWRIGHT) are not run; one location watches their results
 * when they ask for NO_DATA alerts. Deactivated checks are not scheduled.
 */
export function placementOf(
  check: Check | null,
  location: string,
  defaultLocation: string,
  /** The account's private slugs: an external check is not watched from one (see noDataWatcher). */
  privateSlugs?: ReadonlySet<string>,
): Placement | null {
  if (!check || !check.activated) return null;
  if (!isManagedCheck(check)) {
    // An external check asking for NO_DATA alerts is watched like a heartbeat whose pings are its results.
    const silence = check.noDataAlerts ? silenceTimes(check) : null;
    if (silence === null || noDataWatcher(check, privateSlugs, defaultLocation) !== location) return null;
    return { kind: 'heartbeat', ...silence, watch: 'results' };
  }
  if (check.checkType === 'HEARTBEAT') {
    if ((check.locations[0] ?? defaultLocation) !== location || !check.heartbeat) return null;
    return { kind: 'heartbeat', ...heartbeatTimes(check.heartbeat) };
  }
  const here = check.locations.length > 0 ? check.locations.includes(location) : location === defaultLocation;
  return here ? { kind: 'run', frequencyMs: check.frequency * 60_000 } : null;
}

const samePlacement = (a: Placement | null, b: Placement | null) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The checks this runner knows, folded from the check events of the event store (validated with
 * the domain's schemas as they are read back). Definitions change often (a header, an assertion)
 * without touching the schedule; apply() reports only changes of where and how often a check runs.
 */
export class Catalogue {
  private readonly entries = new Map<string, CatalogueEntry>();
  /** Maintenance windows by account, then by id, folded from their events like the checks. */
  private readonly windows = new Map<string, Map<string, MaintenanceWindow>>();
  /**
   * Groups' locations, for their checks that name none. A group's change is no ScheduleChange: a
   * claim drops a check no longer placed here, and the runner's reconcile adds one newly placed.
   */
  private readonly groupLocations = new Map<string, readonly string[]>();
  /** Every slug a private location of the account ever had (a slug is never a runner location's name). */
  private readonly privateSlugs = new Map<string, Set<string>>();

  constructor(
    private readonly location: string,
    private readonly defaultLocation: string,
  ) {}

  get(checkId: string): CatalogueEntry | undefined {
    return this.entries.get(checkId);
  }

  placement(checkId: string): Placement | null {
    const entry = this.entries.get(checkId);
    return this.placementOf(entry?.check ?? null, entry?.accountId);
  }

  private placementOf(check: Check | null, accountId: string | undefined): Placement | null {
    const slugs = accountId === undefined ? undefined : this.privateSlugs.get(accountId);
    return placementOf(this.effective(check), this.location, this.defaultLocation, slugs);
  }

  /** The check with its group's locations when it names none of its own. */
  private effective(check: Check | null): Check | null {
    if (!check || check.locations.length > 0 || !check.groupId) return check;
    const locations = this.groupLocations.get(check.groupId);
    return locations && locations.length > 0 ? { ...check, locations: [...locations] } : check;
  }

  /** Every check scheduled at this location. */
  placed(): Array<{ entry: CatalogueEntry; placement: Placement }> {
    const out: Array<{ entry: CatalogueEntry; placement: Placement }> = [];
    for (const entry of this.entries.values()) {
      const placement = this.placementOf(entry.check, entry.accountId);
      if (placement) out.push({ entry, placement });
    }
    return out;
  }

  /** Whether a window that pauses runs covers the check at this time: its scheduled run is skipped. */
  paused(entry: CatalogueEntry, atMs: number): boolean {
    const windows = this.windows.get(entry.accountId);
    if (!windows || windows.size === 0 || !entry.check) return false;
    const pausing = [...windows.values()].filter((window) => window.pauseRuns);
    return maintenanceAt(pausing, entry.check, atMs) !== null;
  }

  apply(recorded: RecordedEvent): ScheduleChange | null {
    if (recorded.stream.startsWith(WINDOW_STREAM_PREFIX)) {
      this.applyWindow(recorded);
      return null;
    }
    if (recorded.stream.startsWith(PRIVATE_LOCATION_STREAM_PREFIX)) {
      this.applyPrivateLocation(recorded);
      return null;
    }
    if (recorded.stream.startsWith(GROUP_STREAM_PREFIX)) {
      this.applyGroup(recorded);
      return null;
    }
    if (!CHECK_EVENTS.has(recorded.type) || !recorded.stream.startsWith(STREAM_PREFIX)) return null;
    const checkId = recorded.stream.slice(STREAM_PREFIX.length);
    const event = parseCheckEvent(recorded.type, recorded.data);
    const before = this.entries.get(checkId);
    const was = this.placementOf(before?.check ?? null, before?.accountId);
    let atMs: number;
    switch (event.type) {
      case 'CheckCreated':
        this.entries.set(checkId, { checkId, accountId: event.data.accountId, check: event.data.check });
        atMs = Date.parse(event.data.at);
        break;
      case 'CheckUpdated':
        this.entries.set(checkId, {
          checkId,
          accountId: before?.accountId ?? recorded.metadata.accountId ?? '',
          check: event.data.check,
        });
        atMs = Date.parse(event.data.at);
        break;
      case 'CheckDeleted':
        if (before) this.entries.set(checkId, { ...before, check: null });
        atMs = Date.parse(event.data.at);
        break;
      case 'HeartbeatTokenRotated':
        return null;
    }
    const now = placementOf(
      this.effective(this.entries.get(checkId)?.check ?? null),
      this.location,
      this.defaultLocation,
    );
    if (samePlacement(was, now)) return null;
    return { checkId, eventId: recorded.id, atMs, placement: now };
  }

  private applyPrivateLocation(recorded: RecordedEvent): void {
    if (recorded.type !== 'PrivateLocationCreated' && recorded.type !== 'PrivateLocationUpdated') return;
    const event = privateLocationEvents.parse(recorded.type, recorded.data);
    const accountId =
      event.type === 'PrivateLocationCreated' ? event.data.accountId : (recorded.metadata.accountId ?? '');
    if (event.type !== 'PrivateLocationCreated' && event.type !== 'PrivateLocationUpdated') return;
    const slugs = this.privateSlugs.get(accountId) ?? new Set<string>();
    slugs.add(event.data.location.slugName);
    this.privateSlugs.set(accountId, slugs);
  }

  private applyGroup(recorded: RecordedEvent): void {
    if (!['CheckGroupCreated', 'CheckGroupUpdated', 'CheckGroupDeleted'].includes(recorded.type)) return;
    const groupId = recorded.stream.slice(GROUP_STREAM_PREFIX.length);
    const event = parseCheckGroupEvent(recorded.type, recorded.data);
    if (event.type === 'CheckGroupDeleted') this.groupLocations.delete(groupId);
    else this.groupLocations.set(groupId, event.data.group.locations);
  }

  private applyWindow(recorded: RecordedEvent): void {
    const windowId = recorded.stream.slice(WINDOW_STREAM_PREFIX.length);
    const event = maintenanceWindowEvents.parse(recorded.type, recorded.data);
    const accountId =
      event.type === 'MaintenanceWindowCreated' ? event.data.accountId : (recorded.metadata.accountId ?? '');
    const windows = this.windows.get(accountId) ?? new Map<string, MaintenanceWindow>();
    if (event.type === 'MaintenanceWindowDeleted') windows.delete(windowId);
    else windows.set(windowId, event.data.window);
    if (windows.size > 0) this.windows.set(accountId, windows);
    else this.windows.delete(accountId);
  }
}
