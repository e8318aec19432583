import type { CheckResult } from '#domain';
import { parseCheckResultFast } from './fast-check-result.ts';
import type { CheckLookup } from './check-lookup.ts';

export interface Rejection {
  index: number;
  message: string;
}

export interface Classified {
  accepted: CheckResult[];
  /** Index in the input of each accepted result, in the same order. */
  acceptedIndexes: number[];
  rejected: Rejection[];
}

/**
 * Validates raw results with the v1 contract and against the registry: the check must exist,
 * belong to the result's account and have the result's type. Nothing is dropped silently: each
 * input ends up accepted or rejected with a reason that names the field.
 */
export async function classifyResults(raw: readonly unknown[], lookup: CheckLookup): Promise<Classified> {
  // Parallel arrays, not an object per result: this runs for every record the ingestor reads.
  const parsed: CheckResult[] = [];
  const parsedIndexes: number[] = [];
  const rejected: Rejection[] = [];
  for (let index = 0; index < raw.length; index++) {
    const item = raw[index];
    if (item instanceof ParseFailure) {
      rejected.push({ index, message: item.message });
      continue;
    }
    const result = parseCheckResultFast(item);
    if (result.ok) {
      parsed.push(result.value);
      parsedIndexes.push(index);
    } else rejected.push({ index, message: result.message });
  }
  const known = await lookup.resolve(parsed.map((value) => value.checkId));
  const accepted: CheckResult[] = [];
  const acceptedIndexes: number[] = [];
  for (let i = 0; i < parsed.length; i++) {
    const value = parsed[i]!;
    const index = parsedIndexes[i]!;
    const check = known.get(value.checkId);
    if (!check) rejected.push({ index, message: `checkId: unknown check ${value.checkId}` });
    else if (check.accountId !== value.accountId)
      rejected.push({ index, message: `accountId: check ${value.checkId} belongs to another account` });
    else if (check.checkType !== value.checkType)
      rejected.push({
        index,
        message: `checkType: check ${value.checkId} is a ${check.checkType} check, not ${value.checkType}`,
      });
    else {
      accepted.push(value);
      acceptedIndexes.push(index);
    }
  }
  rejected.sort((a, b) => a.index - b.index);
  return { accepted, acceptedIndexes, rejected };
}

/** Stands in for an input item that was not even JSON, so its index keeps its place. */
export class ParseFailure {
  constructor(readonly message: string) {}
}

/** Parses one JSON text; a failure becomes a ParseFailure carrying the reason. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    return new ParseFailure(`not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}
