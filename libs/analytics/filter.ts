import { z } from 'zod';
import { ValidationError } from '#core';
import type { ResultFilter } from './port.ts';
import { sqlString, type SqlDialect } from './sql.ts';

const uuid = z.uuid().toLowerCase();

/** ` WHERE account_id = '…' AND check_id = '…'` (or '' for no filter), ids validated as UUIDs first. */
export function resultFilterSql(filter: ResultFilter, dialect: SqlDialect): string {
  const conditions: string[] = [];
  for (const [field, column] of [
    ['accountId', 'account_id'],
    ['checkId', 'check_id'],
  ] as const) {
    const value = filter[field];
    if (value === undefined) continue;
    const parsed = uuid.safeParse(value);
    if (!parsed.success) throw new ValidationError(`${field}: expected a UUID`);
    conditions.push(`${column} = ${sqlString(parsed.data, dialect)}`);
  }
  return conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
}
