/** Stream names: `<aggregate>-<id>`. The application appends to and reads from these only. */
export const streamNames = {
  account: (accountId: string): string => `account-${accountId}`,
  user: (userId: string): string => `user-${userId}`,
  /** Reservation stream that makes an email unique: appended with expected revision 'no_stream'. */
  userEmail: (normalizedEmail: string): string => `user-email-${normalizedEmail}`,
  apiKey: (keyId: string): string => `api-key-${keyId}`,
  variable: (accountId: string, key: string): string => `variable-${accountId}-${key}`,
  check: (checkId: string): string => `check-${checkId}`,
  checkGroup: (groupId: string): string => `check-group-${groupId}`,
  alertChannel: (channelId: string): string => `alert-channel-${channelId}`,
  statusPage: (pageId: string): string => `status-page-${pageId}`,
  /** Reservation stream that makes a status-page slug unique across accounts. */
  statusPageSlug: (slug: string): string => `status-page-slug-${slug}`,
  maintenanceWindow: (windowId: string): string => `maintenance-window-${windowId}`,
  privateLocation: (locationId: string): string => `private-location-${locationId}`,
} as const;
