import type { SecretBox } from '#core';
import type { CheckGroupView, ReadModels } from './reader.ts';

export interface RunVariables {
  /** Plaintext values by key, secrets included: for {{VAR}} in a check's request, at run time only. */
  variables: Record<string, string>;
  /** The plaintext of every secret, so the runner can scrub it from anything it reports. */
  secretValues: string[];
}

/**
 * The variables a check run may use: the account's, overridden by its group's. Secrets are
 * decrypted here, in the process that runs the check, and nowhere else.
 */
export async function resolveRunVariables(
  readModels: ReadModels,
  box: SecretBox,
  accountId: string,
  group: CheckGroupView['group'] | null,
): Promise<RunVariables> {
  const variables: Record<string, string> = {};
  const secretValues: string[] = [];
  const { items } = await readModels.variables(accountId);
  for (const variable of items) {
    const value = variable.encrypted ? box.decrypt(variable.value) : variable.value;
    variables[variable.key] = value;
    if (variable.secret && value !== '') secretValues.push(value);
  }
  for (const variable of group?.environmentVariables ?? []) variables[variable.key] = variable.value;
  return { variables, secretValues };
}
