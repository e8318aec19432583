import { z } from 'zod';

export const MARKER_PREFIX = 'vigil:';

/** Short enough that `vigil:logical=<id>` fits a tag (64 characters). */
export const logicalIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$/, 'must be 1-48 letters, digits, ".", "_" or "-", starting alphanumeric');
/**
 * The markers a deployed project puts on what it owns, shared by `vigil deploy` (apps/cli) and
 * the Checkly dialect's `checkly deploy` (apps/api/src/checkly): see the README, "Monitoring as code".
 */
export const markers = {
  projectTag: (project: string) => `${MARKER_PREFIX}project=${project}`,
  logicalTag: (logicalId: string) => `${MARKER_PREFIX}logical=${logicalId}`,
  isMarkerTag: (tag: string) => tag.startsWith(MARKER_PREFIX),
  /** The logical id in a resource's tags, when it carries the project's marker. */
  logicalOf(project: string, tags: readonly string[]): string | undefined {
    if (!tags.includes(markers.projectTag(project))) return undefined;
    const prefix = `${MARKER_PREFIX}logical=`;
    return tags.find((tag) => tag.startsWith(prefix))?.slice(prefix.length);
  },
  /**
   * For resources without marker tags (channels have none; a maintenance window's tags choose its
   * checks): the marker ends the name, e.g. `Ops [vigil:shop/ops]`.
   */
  markedName: (name: string, project: string, logicalId: string) => `${name} [vigil:${project}/${logicalId}]`,
  parseMarkedName(full: string): { name: string; project: string; logicalId: string } | undefined {
    const match = /^(.*) \[vigil:([^/\]]+)\/([^\]]+)\]$/.exec(full);
    return match ? { name: match[1]!, project: match[2]!, logicalId: match[3]! } : undefined;
  },
  channelName: (name: string, project: string, logicalId: string) => markers.markedName(name, project, logicalId),
  parseChannelName: (full: string) => markers.parseMarkedName(full),
};
