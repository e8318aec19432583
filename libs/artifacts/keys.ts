import { ValidationError } from '#core';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** day/account/check/result/artifact: the only shape a key takes, so no key can climb out of its root. */
const KEY = /^\d{4}-\d{2}-\d{2}(\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}){4}$/;

export interface ArtifactAddress {
  /** The run's start (the result's startedAt): its UTC day leads the key. */
  startedAt: string | Date;
  accountId: string;
  checkId: string;
  resultId: string;
  artifactId: string;
}

/** The UTC day of a time, as YYYY-MM-DD. */
export function dayOf(time: string | Date): string {
  const date = typeof time === 'string' ? new Date(time) : time;
  if (!Number.isFinite(date.getTime())) throw new ValidationError(`artifact: ${String(time)} is not a time`);
  return date.toISOString().slice(0, 10);
}

/** Day first, so the store lists expired artifacts by day; then the tenant, check, run and artifact. */
export function artifactKey(address: ArtifactAddress): string {
  for (const field of ['accountId', 'checkId', 'resultId', 'artifactId'] as const)
    if (!UUID.test(address[field])) throw new ValidationError(`artifact ${field}: expected a lower-case UUID`);
  return [dayOf(address.startedAt), address.accountId, address.checkId, address.resultId, address.artifactId].join('/');
}

export const isKey = (key: string): boolean => KEY.test(key);

/** Every adapter refuses a key artifactKey could not have made. */
export function assertKey(key: string): void {
  if (!KEY.test(key)) throw new ValidationError(`artifact key ${JSON.stringify(key)}: not a key artifactKey makes`);
}

export function assertDay(day: string): void {
  if (!DAY.test(day)) throw new ValidationError(`artifact day ${JSON.stringify(day)}: expected YYYY-MM-DD`);
}
