import { setImmediate } from 'node:timers/promises';
import { sleep, type Logger } from '#core';
import type { ResolvedConsumeOptions } from './common.ts';
import { deliver } from './deliver.ts';
import type { ConsumedMessage, Consumer } from './port.ts';

/** What a consumer needs from the SQLite log. Every call is synchronous and short. */
export interface PartitionLog {
  partitionsOf(topic: string): number;
  /** Creates the group's offset for a partition if missing: 0, or the log end when not fromBeginning. */
  initOffset(groupId: string, topic: string, partition: number, fromBeginning: boolean): void;
  committed(groupId: string, topic: string, partition: number): number;
  read(topic: string, partition: number, fromOffset: number, limit: number): ConsumedMessage[];
  commit(groupId: string, topic: string, partition: number, nextOffset: number): void;
  /** Resolves after ms, on a publish in this process, or when the signal aborts. */
  waitForPublish(ms: number, signal: AbortSignal): Promise<void>;
}

interface Member {
  seq: number;
  topics: string[];
}

interface Group {
  members: Member[];
  /** Partitions some member is processing right now; a new owner waits until the old one lets go. */
  busy: Set<string>;
}

/**
 * In-process consumer groups over the SQLite log. Members of one group split each topic's
 * partitions round-robin in join order; the split is recomputed on every pass, so a join or a
 * leave takes effect at once. A partition that changes hands is only picked up after the old
 * owner finished (and committed) its in-flight batch, and the new owner reads from the
 * committed offset, so the hand-over neither duplicates nor skips.
 *
 * The coordination lives in this process: consumers of one group must all use the same bus
 * instance. Other processes may publish into the file (they are seen within pollIntervalMs).
 */
export function createGroupCoordinator(log: PartitionLog, logger: Logger, pollIntervalMs: number) {
  const groups = new Map<string, Group>();
  const consumers = new Set<Consumer>();
  let nextSeq = 0;

  function assignment(group: Group, member: Member): [string, number][] {
    const owned: [string, number][] = [];
    for (const topic of member.topics) {
      const subscribers = group.members.filter((other) => other.topics.includes(topic));
      const index = subscribers.indexOf(member);
      if (index < 0) continue;
      const partitions = log.partitionsOf(topic);
      for (let partition = index; partition < partitions; partition += subscribers.length)
        owned.push([topic, partition]);
    }
    return owned;
  }

  function start(options: ResolvedConsumeOptions): Consumer {
    const group = groups.get(options.groupId) ?? { members: [], busy: new Set<string>() };
    groups.set(options.groupId, group);
    const member: Member = { seq: nextSeq++, topics: options.topics };
    // Offsets are fixed before consume() resolves, so with fromBeginning: false a message
    // published right after it is still delivered.
    for (const topic of options.topics) {
      for (let partition = 0; partition < log.partitionsOf(topic); partition++)
        log.initOffset(options.groupId, topic, partition, options.fromBeginning);
    }
    group.members.push(member);

    const controller = new AbortController();
    const { signal } = controller;
    const child = logger.child({ groupId: options.groupId, member: member.seq });
    const initialised = new Set<string>();

    const owns = (topic: string, partition: number) =>
      !signal.aborted && assignment(group, member).some(([t, p]) => t === topic && p === partition);

    async function step(topic: string, partition: number): Promise<boolean> {
      const id = `${topic}:${partition}`;
      if (!initialised.has(id)) {
        // A partition added after the consumer started.
        log.initOffset(options.groupId, topic, partition, options.fromBeginning);
        initialised.add(id);
      }
      const batch = log.read(topic, partition, log.committed(options.groupId, topic, partition), options.maxBatchSize);
      const last = batch[batch.length - 1];
      if (!last) return false;
      const done = await deliver(batch, options, { signal, stillOwned: () => owns(topic, partition) }, child);
      if (done) log.commit(options.groupId, topic, partition, Number(last.offset) + 1);
      return true;
    }

    async function run(): Promise<void> {
      while (!signal.aborted) {
        let worked = false;
        try {
          for (const [topic, partition] of assignment(group, member)) {
            if (signal.aborted) break;
            const id = `${topic}:${partition}`;
            if (group.busy.has(id)) continue;
            group.busy.add(id);
            try {
              worked = (await step(topic, partition)) || worked;
            } finally {
              group.busy.delete(id);
            }
            // SQLite calls are synchronous and a handler may resolve at once: without this a
            // backlog would starve timers and I/O (the HTTP server, in the standalone process).
            await setImmediate();
          }
        } catch (error) {
          // The database failed (busy, disk). Wait and go on: a consumer never dies of it.
          child.warn({ err: error }, 'bus consumer pass failed; retrying');
          await sleep(pollIntervalMs, signal);
          continue;
        }
        if (!worked) await log.waitForPublish(pollIntervalMs, signal);
      }
    }

    const running = run();
    let stopping: Promise<void> | undefined;
    const consumer: Consumer = {
      stop() {
        stopping ??= (async () => {
          controller.abort();
          await running;
          const index = group.members.indexOf(member);
          if (index >= 0) group.members.splice(index, 1);
          if (group.members.length === 0) groups.delete(options.groupId);
          consumers.delete(consumer);
          child.debug('consumer stopped');
        })();
        return stopping;
      },
    };
    consumers.add(consumer);
    return consumer;
  }

  async function stopAll(): Promise<void> {
    await Promise.all([...consumers].map((consumer) => consumer.stop()));
  }

  return { start, stopAll };
}
