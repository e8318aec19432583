import type { z } from 'zod';

/** `path: reason` for every issue, `; `-separated: one line for logs and dead-letter reasons. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path
        .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
        .join('')
        .replace(/^\./, '');
      return path === '' ? issue.message : `${path}: ${issue.message}`;
    })
    .join('; ');
}
