import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { ApiClient } from './http.ts';
import { expectShape } from './http.ts';
import { ingestAnswerSchema } from './schemas.ts';

export interface Rejection {
  line: number;
  message: string;
}

export interface SendState {
  bytes: number;
  sent: number;
  rejected: number;
}

export interface SendSummary {
  /** Non-blank lines read. */
  read: number;
  /** Of those, the ones posted (the others were not JSON). */
  sent: number;
  accepted: number;
  rejected: Rejection[];
  /** Requests made: one a batch. */
  batches: number;
}

// The API takes 16 MiB a request; half leaves room for lines longer than the average.
const MAX_BATCH_BYTES = 8 * 1024 * 1024;
const INGEST_TIMEOUT_MS = 120_000;

/**
 * Reads NDJSON line by line and posts it as JSON arrays. Lines that are not JSON never leave the
 * machine; they are reported with the lines the API rejected, all by line number.
 */
export async function sendBatches(
  client: ApiClient,
  input: NodeJS.ReadableStream,
  batchSize: number,
  onProgress: (state: SendState) => void,
): Promise<SendSummary> {
  const state: SendState = { bytes: 0, sent: 0, rejected: 0 };
  const rejected: Rejection[] = [];
  let accepted = 0;
  let batches = 0;
  let batch: unknown[] = [];
  let batchLines: number[] = [];
  let batchBytes = 0;

  const flush = async () => {
    if (batch.length === 0) return;
    const response = await client.send('POST', '/v1/check-results', { body: batch, timeoutMs: INGEST_TIMEOUT_MS });
    const answer = expectShape(ingestAnswerSchema, response.body, 'POST /v1/check-results');
    accepted += answer.accepted;
    batches++;
    for (const { index, message } of answer.rejected) rejected.push({ line: batchLines[index] ?? -1, message });
    state.sent += batch.length;
    state.rejected = rejected.length;
    batch = [];
    batchLines = [];
    batchBytes = 0;
    onProgress(state);
  };

  let lineNumber = 0;
  let read = 0;
  // Created right before the loop: a readline interface emits lines as soon as it exists, and
  // lines emitted before the iterator attaches are lost.
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    lineNumber++;
    state.bytes += Buffer.byteLength(line) + 1;
    if (line.trim() === '') continue;
    read++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      rejected.push({ line: lineNumber, message: `not JSON: ${(error as Error).message}` });
      state.rejected = rejected.length;
      continue;
    }
    batch.push(withDefaults(value));
    batchLines.push(lineNumber);
    batchBytes += line.length;
    if (batch.length >= batchSize || batchBytes >= MAX_BATCH_BYTES) await flush();
  }
  await flush();
  rejected.sort((a, b) => a.line - b.line);
  return { read, sent: state.sent, accepted, rejected, batches };
}

/**
 * A result without an id gets a fresh one (so a re-sent file counts twice: give ids to make
 * re-sending safe), and one without startedAt is stamped now.
 */
function withDefaults(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const result = value as Record<string, unknown>;
  if (result.id !== undefined && result.startedAt !== undefined) return value;
  return { ...result, id: result.id ?? randomUUID(), startedAt: result.startedAt ?? new Date().toISOString() };
}
