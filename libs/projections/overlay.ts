import type { StateStore, WriteOp } from '#statestore';
import type { ReadView } from './projection.ts';

const deleted = Symbol('deleted');
type Pending = string | typeof deleted;

/**
 * Buffers a batch's writes so later events in the same batch read what earlier ones wrote,
 * while the store itself changes only at the batch's single atomic write.
 */
export class BatchOverlay implements ReadView {
  readonly ops: WriteOp[] = [];
  private readonly values = new Map<string, Pending>();
  private readonly fields = new Map<string, Map<string, Pending>>();

  constructor(private readonly store: StateStore) {}

  add(ops: WriteOp[]): void {
    for (const op of ops) {
      this.ops.push(op);
      if (op.op === 'set') this.values.set(op.key, op.value);
      else if (op.op === 'del') {
        this.values.set(op.key, deleted);
        this.fields.set(op.key, new Map());
      } else if (op.op === 'hset') this.fieldMap(op.key).set(op.field, op.value);
      else if (op.op === 'hdel') this.fieldMap(op.key).set(op.field, deleted);
    }
  }

  async get(key: string): Promise<string | null> {
    const pending = this.values.get(key);
    if (pending === deleted) return null;
    return pending ?? this.store.get(key);
  }

  async hget(key: string, field: string): Promise<string | null> {
    const pending = this.fields.get(key)?.get(field);
    if (pending === deleted) return null;
    if (pending !== undefined) return pending;
    // A deleted hash whose field was not rewritten reads as absent.
    if (this.values.get(key) === deleted) return null;
    return this.store.hget(key, field);
  }

  private fieldMap(key: string): Map<string, Pending> {
    let map = this.fields.get(key);
    if (!map) this.fields.set(key, (map = new Map()));
    return map;
  }
}
