import { session } from './api.ts';

export interface LiveEvent {
  event: string;
  data: unknown;
}

/**
 * Follows GET /v1/events with fetch (EventSource cannot send the Authorization header, and the
 * key must not go in a URL). Reconnects after a drop; returns a function that stops it.
 */
export function followEvents(onEvent: (event: LiveEvent) => void, onState?: (connected: boolean) => void): () => void {
  let stopped = false;
  let controller: AbortController | null = null;
  const run = async () => {
    while (!stopped) {
      const s = session();
      if (!s) return;
      controller = new AbortController();
      try {
        const response = await fetch('/v1/events', {
          headers: { authorization: `Bearer ${s.key}`, 'x-service-account': s.accountId },
          signal: controller.signal,
        });
        if (!response.ok || !response.body) throw new Error(`events: ${response.status}`);
        onState?.(true);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let event = 'message';
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) event = line.slice(7);
              else if (line.startsWith('data: ')) data.push(line.slice(6));
            }
            if (data.length > 0) onEvent({ event, data: JSON.parse(data.join('\n')) });
          }
        }
      } catch {
        // dropped, aborted or refused: wait and reconnect unless stopped
      }
      onState?.(false);
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller?.abort();
  };
}
