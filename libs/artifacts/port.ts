import type { Readable } from 'node:stream';

/** One stored artifact as read back: its bytes as a stream, with what was said of them at put. */
export interface StoredArtifact {
  body: Readable;
  contentType: string;
  bytes: number;
}

/**
 * Screenshots, traces and failing response bodies of runs. Keys are made by artifactKey (day
 * first), so retention lists the oldest days without reading the rest.
 */
export interface ArtifactStore {
  /** Writes the whole body durably; the same key again replaces it (a repeated run keeps its ids). */
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** The artifact, or null when it is unknown or was deleted. */
  get(key: string): Promise<StoredArtifact | null>;
  /** Deletes the keys; unknown keys are no error. */
  delete(keys: readonly string[]): Promise<void>;
  /** Up to `limit` keys whose day is before `beforeDay` (YYYY-MM-DD), oldest first. */
  listBefore(beforeDay: string, limit: number): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
