import { randomUUID } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { artifactKey } from './keys.ts';
import type { ArtifactStore } from './port.ts';

/** The behaviour every ArtifactStore adapter must share. Run it once per adapter. */
export function artifactStoreContract(name: string, factory: () => Promise<ArtifactStore>): void {
  describe(`ArtifactStore contract: ${name}`, () => {
    let store: ArtifactStore;
    // One account per run of the suite, so adapters sharing a server never see each other's keys.
    const accountId = randomUUID();
    const key = (startedAt = new Date().toISOString()) =>
      artifactKey({ startedAt, accountId, checkId: randomUUID(), resultId: randomUUID(), artifactId: randomUUID() });
    const read = async (k: string) => {
      const got = await store.get(k);
      return got ? { ...got, body: await buffer(got.body) } : null;
    };

    beforeAll(async () => {
      store = await factory();
    });
    afterAll(async () => {
      await store?.close();
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('gives back the bytes and content type put, byte for byte', async () => {
      const k = key();
      const body = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256));
      await store.put(k, body, 'image/png');
      const got = await read(k);
      expect(got?.contentType).toBe('image/png');
      expect(got?.bytes).toBe(body.length);
      expect(got?.body.equals(body)).toBe(true);
    });

    it('keeps an empty body', async () => {
      const k = key();
      await store.put(k, Buffer.alloc(0), 'text/plain; charset=utf-8');
      const got = await read(k);
      expect(got?.bytes).toBe(0);
      expect(got?.body.length).toBe(0);
      expect(got?.contentType).toBe('text/plain; charset=utf-8');
    });

    it('replaces an artifact put again under the same key', async () => {
      const k = key();
      await store.put(k, Buffer.from('first'), 'text/plain');
      await store.put(k, Buffer.from('second, longer'), 'application/json');
      const got = await read(k);
      expect(got?.body.toString()).toBe('second, longer');
      expect(got?.contentType).toBe('application/json');
    });

    it('answers null for an unknown key and after a delete; deleting unknown keys is no error', async () => {
      const k = key();
      expect(await store.get(k)).toBeNull();
      await store.put(k, Buffer.from('x'), 'text/plain');
      await store.delete([k, key()]);
      expect(await store.get(k)).toBeNull();
      await expect(store.delete([])).resolves.toBeUndefined();
    });

    it('refuses keys artifactKey could not have made', async () => {
      for (const bad of ['../etc/passwd', '2026-01-01/../../x', '', `${key()}/extra`])
        await expect(store.put(bad, Buffer.from('x'), 'text/plain')).rejects.toBeInstanceOf(ValidationError);
      await expect(store.get('a/b')).rejects.toBeInstanceOf(ValidationError);
      await expect(store.listBefore('yesterday', 10)).rejects.toBeInstanceOf(ValidationError);
    });

    it('lists keys of days before the given one, oldest first, at most limit at a time', async () => {
      // Days long past, so another suite's fresh artifacts in a shared store never come before them.
      const old = ['1971-01-02', '1971-01-03', '1971-01-03', '1971-01-04'].map((day) => key(`${day}T12:00:00Z`));
      const kept = key('1971-01-05T00:00:00Z');
      for (const k of [...old, kept]) await store.put(k, Buffer.from(k), 'text/plain');
      try {
        const first = await store.listBefore('1971-01-05', 2);
        expect(first).toHaveLength(2);
        expect(first[0]).toBe(old[0]);
        expect(first[1]!.startsWith('1971-01-03/')).toBe(true);
        const all = await store.listBefore('1971-01-05', 100);
        expect(all.filter((k) => k.includes(accountId)).sort()).toEqual([...old].sort());
        expect(all).not.toContain(kept);
        expect(await store.listBefore('1971-01-02', 100)).not.toContain(old[0]);
        await store.delete(old);
        expect((await store.listBefore('1971-01-05', 100)).filter((k) => k.includes(accountId))).toEqual([]);
        expect((await read(kept))?.body.toString()).toBe(kept);
      } finally {
        await store.delete([...old, kept]);
      }
    });
  });
}
