/**
 * Headers the service sets on every delivery. A channel's own header of the same name is not
 * sent: the signature, timestamp and id must be the service's, and the length and framing
 * belong to the HTTP client.
 */
export const SERVICE_HEADER_NAMES: ReadonlySet<string> = new Set([
  'user-agent',
  'x-service-timestamp',
  'x-service-signature',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'content-length',
  'transfer-encoding',
  'connection',
  'host',
]);
