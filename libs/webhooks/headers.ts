/**
 * Headers the service sets on every delivery. A channel's own header of the same name is not
 * sent: the signature, timestamp and id must be the service's, and the length, framing and the
 * connection's own (hop-by-hop) headers belong to the HTTP client, which refuses to send them.
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
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-connection',
  'host',
]);
