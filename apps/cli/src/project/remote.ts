import { z } from 'zod';
import type { ApiClient } from '../http.ts';
import { fetchAll } from '../paging.ts';
import { alertChannelSchema, checkGroupSchema, checkSchema, maintenanceWindowSchema } from '../schemas.ts';
import type { Managed, ManagedChannel, RemoteState } from './plan.ts';
import { markers } from './schema.ts';

const tagged = z.looseObject({ tags: z.array(z.string()).default([]) });
const subscriptions = z.looseObject({
  subscriptions: z
    .array(z.looseObject({ checkId: z.string().nullish(), groupId: z.string().nullish(), activated: z.boolean() }))
    .default([]),
});

/** What the account holds with this project's marker; everything else is left alone. */
export async function fetchRemote(client: ApiClient, project: string): Promise<RemoteState> {
  const [checks, groups, channels, windows] = await Promise.all([
    fetchAll(client, '/v1/checks', checkSchema.and(tagged), { tag: markers.projectTag(project) }),
    fetchAll(client, '/v1/check-groups', checkGroupSchema.and(tagged)),
    fetchAll(client, '/v1/alert-channels', alertChannelSchema.and(subscriptions)),
    fetchAll(client, '/v1/maintenance-windows', maintenanceWindowSchema),
  ]);
  const byTags = (items: Array<{ id: string; tags: string[] } & Record<string, unknown>>): Managed[] =>
    items.flatMap((raw) => {
      const logicalId = markers.logicalOf(project, raw.tags);
      return logicalId === undefined ? [] : [{ id: raw.id, logicalId, raw }];
    });
  const managedChannels: ManagedChannel[] = channels.flatMap((raw) => {
    const marker = markers.parseChannelName(raw.config.name);
    if (!marker || marker.project !== project) return [];
    return [{ id: raw.id, logicalId: marker.logicalId, raw, subscriptions: raw.subscriptions }];
  });
  // A window's tags choose its checks, so its marker is in its name, as a channel's is.
  const managedWindows: Managed[] = windows.flatMap((raw) => {
    const marker = markers.parseMarkedName(raw.name);
    return marker && marker.project === project ? [{ id: raw.id, logicalId: marker.logicalId, raw }] : [];
  });
  return { checks: byTags(checks), groups: byTags(groups), channels: managedChannels, windows: managedWindows };
}
