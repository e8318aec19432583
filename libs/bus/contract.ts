import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, ValidationError } from '#core';
import { uniqueSuffix } from '#test-support';
import { partitionFor } from './common.ts';
import { expectWellFormedBatches, recorder, settleMs, sortedValues, waitFor } from './contract-support.ts';
import type { BusMessage, ConsumeOptions, Consumer, MessageBus } from './port.ts';

export type BusFactory = () => Promise<MessageBus> | MessageBus;

/** The behaviour every MessageBus adapter must have. The factory's bus is closed at the end. */
export function messageBusContract(name: string, factory: BusFactory): void {
  describe(`MessageBus contract: ${name}`, () => {
    let bus: MessageBus;
    const started: Consumer[] = [];
    const suffix = uniqueSuffix();
    let counter = 0;
    const topicName = (label: string) => `contract.${label}.${suffix}.${counter++}`;
    const groupName = (label: string) => `contract-${label}-${suffix}-${counter++}`;

    beforeAll(async () => {
      bus = await factory();
    });
    afterAll(async () => {
      await Promise.all(started.map((consumer) => consumer.stop()));
      await bus?.close();
    });

    async function consume(options: ConsumeOptions): Promise<Consumer> {
      const consumer = await bus.consume(options);
      started.push(consumer);
      return consumer;
    }

    async function newTopic(label: string, partitions: number): Promise<string> {
      const topic = topicName(label);
      await bus.ensureTopics([{ name: topic, partitions }]);
      return topic;
    }

    it('delivers published messages to a group reading from the beginning', async () => {
      const topic = await newTopic('basic', 3);
      const sent: BusMessage[] = Array.from({ length: 20 }, (_, i) => ({
        key: `key-${i % 5}`,
        value: JSON.stringify({ i }),
      }));
      const before = Date.now();
      await bus.publish(topic, sent);
      const seen = recorder();
      await consume({ groupId: groupName('basic'), topics: [topic], handler: seen.handler });
      await waitFor(() => seen.messages.length >= sent.length, 'all messages');
      await sleep(settleMs);
      expect(sortedValues(seen.messages)).toEqual(sortedValues(sent));
      for (const message of seen.messages) {
        expect(message.topic).toBe(topic);
        // Both adapters place keys like Kafka's Java client (murmur2).
        expect(message.partition).toBe(partitionFor(message.key, 3));
        expect(message.offset).toMatch(/^\d+$/);
        expect(message.timestamp).toBeGreaterThanOrEqual(before - 60_000);
        expect(message.timestamp).toBeLessThanOrEqual(Date.now() + 60_000);
      }
      expectWellFormedBatches(seen.batches);
    });

    it('keeps the publish order of every key', async () => {
      const topic = await newTopic('order', 4);
      const keys = 40;
      const perKey = 25;
      const sent: BusMessage[] = [];
      for (let seq = 0; seq < perKey; seq++)
        for (let k = 0; k < keys; k++) sent.push({ key: `check-${k}`, value: `${k}:${seq}` });
      for (let i = 0; i < sent.length; i += 100) await bus.publish(topic, sent.slice(i, i + 100));
      const seen = recorder();
      await consume({ groupId: groupName('order'), topics: [topic], maxBatchSize: 37, handler: seen.handler });
      await waitFor(() => seen.messages.length >= sent.length, 'all messages');
      await sleep(settleMs);
      expect(seen.messages).toHaveLength(sent.length);
      const byKey = new Map<string, number[]>();
      for (const message of seen.messages) {
        const [k, seq] = message.value.split(':');
        byKey.set(k!, [...(byKey.get(k!) ?? []), Number(seq)]);
      }
      expect(byKey.size).toBe(keys);
      for (const seqs of byKey.values()) expect(seqs).toEqual(Array.from({ length: perKey }, (_, i) => i));
      expect(Math.max(...seen.batches.map((batch) => batch.length))).toBeLessThanOrEqual(37);
      expectWellFormedBatches(seen.batches);
    });

    it('gives every group every message', async () => {
      const topic = await newTopic('groups', 2);
      const sent: BusMessage[] = Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));
      const first = recorder();
      const second = recorder();
      await consume({ groupId: groupName('first'), topics: [topic], handler: first.handler });
      await consume({ groupId: groupName('second'), topics: [topic], handler: second.handler });
      await bus.publish(topic, sent);
      await waitFor(() => first.messages.length >= 30 && second.messages.length >= 30, 'both groups');
      await sleep(settleMs);
      expect(sortedValues(first.messages)).toEqual(sortedValues(sent));
      expect(sortedValues(second.messages)).toEqual(sortedValues(sent));
    });

    it('splits a group between two consumers, exactly once after the group settled', async () => {
      const topic = await newTopic('split', 4);
      const group = groupName('split');
      const a = recorder();
      const b = recorder();
      await consume({ groupId: group, topics: [topic], maxBatchSize: 10, handler: a.handler });
      await consume({ groupId: group, topics: [topic], maxBatchSize: 10, handler: b.handler });
      const seenBy = (who: ReturnType<typeof recorder>, prefix: string) =>
        who.messages.some((message) => message.value.startsWith(prefix));
      // While the second member joins, a rebalance may deliver a batch twice (at-least-once).
      // A round that reaches both members shows the group settled with both of them.
      let settled = false;
      for (let round = 0; round < 20 && !settled; round++) {
        const values = Array.from({ length: 40 }, (_, i) => `warm-${round}-${i}`);
        await bus.publish(
          topic,
          values.map((value, i) => ({ key: `k${i}`, value })),
        );
        const all = () => new Set([...a.values(), ...b.values()]);
        await waitFor(
          () => values.every((value) => all().has(value)),
          `warm-up round ${round}, every message at least once`,
        );
        settled = seenBy(a, `warm-${round}-`) && seenBy(b, `warm-${round}-`);
      }
      expect(settled).toBe(true);
      const [aFrom, bFrom] = [a.messages.length, b.messages.length];
      const sent: BusMessage[] = Array.from({ length: 200 }, (_, i) => ({ key: `k${i % 40}`, value: `main-${i}` }));
      await bus.publish(topic, sent);
      const main = () => [...a.messages.slice(aFrom), ...b.messages.slice(bFrom)];
      await waitFor(() => main().length >= sent.length, 'the main round');
      await sleep(settleMs);
      expect(sortedValues(main())).toEqual(sortedValues(sent));
      const aKeys = new Set(a.messages.slice(aFrom).map((message) => message.key));
      const bKeys = new Set(b.messages.slice(bFrom).map((message) => message.key));
      expect(aKeys.size).toBeGreaterThan(0);
      expect(bKeys.size).toBeGreaterThan(0);
      expect([...aKeys].filter((key) => bKeys.has(key))).toEqual([]);
    });

    it('delivers a failed batch again, unchanged, until the handler succeeds', async () => {
      const topic = await newTopic('retry', 1);
      const sent: BusMessage[] = Array.from({ length: 5 }, (_, i) => ({ key: 'same', value: `r${i}` }));
      await bus.publish(topic, sent);
      const calls: { offsets: string[]; attempt: number }[] = [];
      const failures: number[] = [];
      const seen = recorder((batch, ctx) => {
        calls.push({ offsets: batch.map((message) => message.offset), attempt: ctx.attempt });
        if (calls.length <= 2) throw new Error('transient failure');
      });
      await consume({
        groupId: groupName('retry'),
        topics: [topic],
        handler: seen.handler,
        retry: { initialMs: 50, maxMs: 200 },
        onError: (_error, attempt) => failures.push(attempt),
      });
      await waitFor(() => seen.messages.length >= 5, 'the successful attempt');
      await sleep(settleMs);
      expect(calls).toHaveLength(3);
      expect(calls.map((call) => call.attempt)).toEqual([1, 2, 3]);
      expect(calls[1]!.offsets).toEqual(calls[0]!.offsets);
      expect(calls[2]!.offsets).toEqual(calls[0]!.offsets);
      expect(failures).toEqual([1, 2]);
      expect(seen.values()).toEqual(sent.map((message) => message.value));
    });

    it('never commits a batch that did not succeed: the next consumer gets it', async () => {
      const topic = await newTopic('poison', 1);
      const group = groupName('poison');
      await bus.publish(topic, [
        { key: 'p', value: 'p0' },
        { key: 'p', value: 'p1' },
      ]);
      let attempts = 0;
      const failing = await consume({
        groupId: group,
        topics: [topic],
        retry: { initialMs: 20, maxMs: 50 },
        handler: async () => {
          attempts += 1;
          throw new Error('always fails');
        },
      });
      await waitFor(() => attempts >= 3, 'three failed attempts');
      await failing.stop();
      const next = recorder();
      await consume({ groupId: group, topics: [topic], handler: next.handler });
      await waitFor(() => next.messages.length >= 2, 'the redelivered messages');
      await sleep(settleMs);
      expect(next.values()).toEqual(['p0', 'p1']);
    });

    it('stop() finishes the in-flight batch and commits it; the next consumer resumes after it', async () => {
      const topic = await newTopic('resume', 1);
      const group = groupName('resume');
      await bus.publish(
        topic,
        Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `s${i}` })),
      );
      let entered!: () => void;
      const inFlight = new Promise<void>((resolve) => (entered = resolve));
      let finished = false;
      const first = recorder(async () => {
        entered();
        await sleep(300); // ignores the stop signal on purpose: stop() must wait for it
        finished = true;
      });
      const consumer = await consume({ groupId: group, topics: [topic], maxBatchSize: 5, handler: first.handler });
      await Promise.race([inFlight, sleep(30_000).then(() => Promise.reject(new Error('no batch arrived')))]);
      await consumer.stop();
      expect(finished).toBe(true);
      expect(first.values()).toEqual(['s0', 's1', 's2', 's3', 's4']);
      await bus.publish(
        topic,
        Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `s${10 + i}` })),
      );
      const second = recorder();
      await consume({ groupId: group, topics: [topic], handler: second.handler });
      await waitFor(() => second.messages.length >= 10, 'the rest');
      await sleep(settleMs);
      expect(second.values()).toEqual(Array.from({ length: 10 }, (_, i) => `s${5 + i}`));
    });

    it('starts a new group at the end of the log when fromBeginning is false', async () => {
      const topic = await newTopic('latest', 2);
      await bus.publish(
        topic,
        Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `old${i}` })),
      );
      const seen = recorder();
      await consume({ groupId: groupName('latest'), topics: [topic], fromBeginning: false, handler: seen.handler });
      const fresh = Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `new${i}` }));
      await bus.publish(topic, fresh);
      await waitFor(() => seen.messages.length >= 5, 'the new messages');
      await sleep(settleMs);
      expect(sortedValues(seen.messages)).toEqual(sortedValues(fresh));
    });

    it('round-trips headers, empty values and unicode', async () => {
      const topic = await newTopic('headers', 1);
      const headers = { 'content-type': 'application/json', 'x-trace-id': 'abc-123', 'x-note': 'ünïcødé ✓' };
      await bus.publish(topic, [
        { key: 'h', value: 'with', headers },
        { key: 'h', value: 'without' },
        { key: 'h', value: '' },
        { key: 'ключ', value: '{"emoji":"🚨"}' },
      ]);
      const seen = recorder();
      await consume({ groupId: groupName('headers'), topics: [topic], handler: seen.handler });
      await waitFor(() => seen.messages.length >= 4, 'four messages');
      const [withHeaders, without, empty, unicode] = seen.messages;
      expect(withHeaders?.headers).toEqual(headers);
      expect(without?.headers).toBeUndefined();
      expect(empty?.value).toBe('');
      expect(unicode?.key).toBe('ключ');
      expect(unicode?.value).toBe('{"emoji":"🚨"}');
    });

    it('ensureTopics is idempotent and keeps an existing partition count', async () => {
      const topic = topicName('ensure');
      const other = topicName('ensure-other');
      await bus.ensureTopics([{ name: topic, partitions: 2 }]);
      await bus.ensureTopics([{ name: topic, partitions: 2 }]);
      await Promise.all([
        bus.ensureTopics([{ name: topic, partitions: 2 }]),
        bus.ensureTopics([
          { name: topic, partitions: 2 },
          { name: other, partitions: 1 },
        ]),
      ]);
      await bus.ensureTopics([{ name: topic, partitions: 6 }]);
      await bus.ensureTopics([]);
      const sent = Array.from({ length: 30 }, (_, i) => ({ key: `key-${i}`, value: `e${i}` }));
      await bus.publish(topic, sent);
      const seen = recorder();
      await consume({ groupId: groupName('ensure'), topics: [topic], handler: seen.handler });
      await waitFor(() => seen.messages.length >= 30, 'all messages');
      for (const message of seen.messages) expect(message.partition).toBe(partitionFor(message.key, 2));
    });

    it('rejects invalid input with ValidationError and answers ping', async () => {
      const topic = await newTopic('invalid', 1);
      await expect(bus.publish('not a topic!', [{ key: 'k', value: 'v' }])).rejects.toBeInstanceOf(ValidationError);
      await expect(bus.publish(topic, [{ key: 1 as unknown as string, value: 'v' }])).rejects.toBeInstanceOf(
        ValidationError,
      );
      await expect(bus.ensureTopics([{ name: topic, partitions: 0 }])).rejects.toBeInstanceOf(ValidationError);
      await expect(
        bus.consume({ groupId: '', topics: [topic], handler: async () => undefined }),
      ).rejects.toBeInstanceOf(ValidationError);
      await expect(bus.publish(topic, [])).resolves.toBeUndefined();
      await expect(bus.ping()).resolves.toBeUndefined();
    });
  });
}
