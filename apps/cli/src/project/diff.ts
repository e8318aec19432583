/** One changed field: its dot path, what the server has, what the file wants. */
export interface FieldChange {
  path: string;
  old: unknown;
  new: unknown;
}

/** What the API shows instead of a value the caller may not read: it cannot be compared. */
const MASKED = '********';

type Plain = Record<string, unknown>;
const isPlain = (value: unknown): value is Plain =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The file declares a subset of each resource: the server fills in the rest (a request's default
 * method, an assertion's empty property, …). So a declared object matches when every field it
 * names matches; fields it leaves out are compared only at the top level, against the defaults
 * the server would apply (`defaults`), so that deleting a line from the file resets the field.
 */
export function diffFields(desired: Plain, current: Plain, defaults: Plain = {}): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [key, value] of Object.entries(desired)) compare(key, value, current[key], changes);
  for (const [key, fallback] of Object.entries(defaults)) {
    if (key in desired || current[key] === undefined) continue;
    compare(key, fallback, current[key], changes);
  }
  return changes;
}

function compare(path: string, desired: unknown, current: unknown, changes: FieldChange[]): void {
  if (!matches(desired, current)) {
    if (isPlain(desired) && isPlain(current)) {
      // Name the inner field that differs rather than the whole object.
      for (const [key, value] of Object.entries(desired)) compare(`${path}.${key}`, value, current[key], changes);
      return;
    }
    changes.push({ path, old: current, new: desired });
  }
}

export function matches(desired: unknown, current: unknown): boolean {
  if (current === MASKED && typeof desired === 'string') return true;
  if (desired === undefined) return true;
  if (desired === null) return current === null || current === undefined;
  if (Array.isArray(desired)) {
    return (
      Array.isArray(current) &&
      current.length === desired.length &&
      desired.every((item, index) => matches(item, current[index]))
    );
  }
  if (isPlain(desired)) {
    if (!isPlain(current)) return false;
    return Object.entries(desired).every(([key, value]) => matches(value, current[key]));
  }
  return desired === current;
}

/** A value as the plan prints it. */
export function show(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
