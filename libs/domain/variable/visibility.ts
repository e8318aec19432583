import { roleAtLeast, type Role } from '../roles.ts';

/** What a caller sees instead of a value they may not read. */
export const MASKED_VALUE = '********';

/** Who is looking: their role in the account and the id recorded as the actor of their writes. */
export interface Viewer {
  role: Role;
  actor: string;
}

/** A variable as far as masking goes: account variables have a creator, group variables do not. */
export interface MaskableVariable {
  value: string;
  locked: boolean;
  secret?: boolean;
  createdBy?: string | null;
}

/**
 * The one masking rule, for every place a variable's value can come out (GET, lists, group
 * variables, template previews and test sends): a secret never; a locked value only to ADMIN and
 * above, or to the variable's creator when one is recorded.
 */
export function mayRead(variable: MaskableVariable, viewer: Viewer): boolean {
  if (variable.secret) return false;
  if (!variable.locked) return true;
  return roleAtLeast(viewer.role, 'ADMIN') || (variable.createdBy != null && variable.createdBy === viewer.actor);
}

/** The value as the viewer may see it. */
export function visibleValue(variable: MaskableVariable, viewer: Viewer): string {
  return mayRead(variable, viewer) ? variable.value : MASKED_VALUE;
}
