/**
 * Formats .env lines that dotenv and Node's --env-file both read back to the exact value. Neither
 * has escapes inside quotes (bar \n and \r in double quotes), so a value is wrapped in the first
 * quote character it does not contain: single quotes, then double, then backticks. All three may
 * span lines. A value with all three quote characters cannot be written faithfully.
 */
export function dotenvLine(key: string, value: string): string | undefined {
  const quoted = quote(value);
  return quoted === undefined ? undefined : `${key}=${quoted}`;
}

export function quote(value: string): string | undefined {
  if (/^[A-Za-z0-9_./:@%+,=-]*$/.test(value)) return value;
  if (!value.includes("'")) return `'${value}'`;
  // Inside double quotes both parsers turn the two characters \n into a line break.
  if (!value.includes('"') && !/\\[nr]/.test(value)) return `"${value}"`;
  if (!value.includes('`')) return `\`${value}\``;
  return undefined;
}

export const MASKED = '********';
