/** Every read-model key lives under rm: so a rebuild can clear them all at once. */
export const READ_MODEL_PREFIX = 'rm:';

export const keys = {
  doc: (aggregate: Aggregate, id: string) => `rm:${aggregate}:${id}`,
  apiKeyByHash: (hash: string) => `rm:api-key-hash:${hash}`,
  userByEmail: (email: string) => `rm:user-email:${email}`,
  accountMembers: (accountId: string) => `rm:account-members:${accountId}`,
  userApiKeys: (userId: string) => `rm:user-api-keys:${userId}`,
  accountServiceKeys: (accountId: string) => `rm:account-service-keys:${accountId}`,
  accountVariables: (accountId: string) => `rm:account-variables:${accountId}`,
  accountChecks: (accountId: string) => `rm:account-checks:${accountId}`,
  groupChecks: (groupId: string) => `rm:group-checks:${groupId}`,
  accountGroups: (accountId: string) => `rm:account-check-groups:${accountId}`,
  accountChannels: (accountId: string) => `rm:account-alert-channels:${accountId}`,
  checkChannels: (checkId: string) => `rm:check-channels:${checkId}`,
  groupChannels: (groupId: string) => `rm:group-channels:${groupId}`,
  heartbeatToken: (token: string) => `rm:heartbeat-token:${token}`,
  /** A group trigger token's sha256 (hex) → the group's id: Checkly's URL names no account. */
  groupTriggerByDigest: (digest: string) => `rm:group-trigger-digest:${digest}`,
  accountStatusPages: (accountId: string) => `rm:account-status-pages:${accountId}`,
  statusPageBySlug: (slug: string) => `rm:status-page-by-slug:${slug}`,
  accountMaintenanceWindows: (accountId: string) => `rm:account-maintenance-windows:${accountId}`,
  accountPrivateLocations: (accountId: string) => `rm:account-private-locations:${accountId}`,
  /** A private-location key's hash → `<locationId>:<keyId>`. */
  privateLocationKeyByHash: (hash: string) => `rm:private-location-key-hash:${hash}`,
};

export type Aggregate =
  | 'account'
  | 'user'
  | 'user-email'
  | 'api-key'
  | 'variable'
  | 'check'
  | 'check-group'
  | 'alert-channel'
  | 'status-page'
  | 'status-page-slug'
  | 'maintenance-window'
  | 'private-location';
