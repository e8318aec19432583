import { z } from 'zod';
import { ForbiddenError } from '#core';

/** Ordered from least to most access: a role includes every permission of the roles before it. */
export const roles = ['READ_ONLY', 'READ_WRITE', 'ADMIN', 'OWNER'] as const;
export type Role = (typeof roles)[number];
export const roleSchema = z.enum(roles);

export function roleAtLeast(role: Role, min: Role): boolean {
  return roles.indexOf(role) >= roles.indexOf(min);
}

/**
 * The role ceiling: nobody grants a role above their own, nor acts on a member or key above it.
 * Every decider that grants or touches a role calls this with the role the command carries.
 */
export function assertWithinCeiling(actorRole: Role | null | undefined, role: Role, what: string): void {
  if (!actorRole || !roleAtLeast(actorRole, role)) {
    throw new ForbiddenError(`${what}: the role ${role} is above your own role (${actorRole ?? 'none'})`);
  }
}

/** Managing members and service keys needs ADMIN or OWNER. */
export function assertAdmin(actorRole: Role | null | undefined, what: string): void {
  if (!actorRole || !roleAtLeast(actorRole, 'ADMIN')) throw new ForbiddenError(`${what} needs the ADMIN or OWNER role`);
}
