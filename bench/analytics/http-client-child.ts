/**
 * The child side of remote-client.ts: fires each GET it is sent over IPC with its own fetch
 * (undici, keep-alive, as a user's Node client would) and reports the status and the time from
 * the request to the whole body read, measured here, out of the server's process.
 */
interface Ask {
  id: number;
  url: string;
  headers: Record<string, string>;
}

process.on('message', (message: Ask) => {
  const started = performance.now();
  fetch(message.url, { headers: message.headers })
    .then(async (response) => {
      const body = await response.text();
      const ms = performance.now() - started;
      process.send!({ id: message.id, status: response.status, ms, body });
    })
    .catch((error: unknown) => process.send!({ id: message.id, status: 0, ms: 0, body: String(error) }));
});
process.on('disconnect', () => process.exit(0));
