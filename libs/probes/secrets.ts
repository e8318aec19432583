/** Replaces {{NAME}} with the variable's value; unknown names stay as written. */
export function substitute(text: string, variables: Record<string, string>): string {
  return text.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (whole, name: string) =>
    Object.hasOwn(variables, name) ? (variables[name] as string) : whole,
  );
}

export const SCRUBBED = '********';

/**
 * Removes every secret value from text a probe outputs. Encoded forms count too: a secret in a
 * URL appears percent-encoded in error messages, and one in basic auth as base64.
 */
export function createScrubber(secretValues: readonly string[]): (text: string) => string {
  const forms = new Set<string>();
  for (const value of secretValues) {
    if (value === '') continue;
    forms.add(value);
    forms.add(encodeURIComponent(value));
    forms.add(encodeURI(value));
    forms.add(JSON.stringify(value).slice(1, -1));
    forms.add(Buffer.from(value).toString('base64').replace(/=+$/, ''));
  }
  // Longest first, so a secret containing another is removed whole.
  const ordered = [...forms].filter((form) => form !== '').sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const form of ordered) out = out.split(form).join(SCRUBBED);
    return out;
  };
}

/** Scrubs a value shown to users and keeps it short. */
export function shorten(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
