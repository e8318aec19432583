import { z } from 'zod';

/** Ordered from least to most access: a role includes every permission of the roles before it. */
export const roles = ['READ_ONLY', 'READ_WRITE', 'ADMIN', 'OWNER'] as const;
export type Role = (typeof roles)[number];
export const roleSchema = z.enum(roles);

export function roleAtLeast(role: Role, min: Role): boolean {
  return roles.indexOf(role) >= roles.indexOf(min);
}
