import type { SecretBox } from '#core';
import { mayRead, type MaskableVariable, type Viewer } from '#domain';
import type { CheckGroupView, ReadModels } from './reader.ts';

export interface RunVariables {
  /** Plaintext values by key, secrets and locked values included: for {{VAR}} in a check's request, at run time only. */
  variables: Record<string, string>;
  /**
   * Every value the run's readers may not see (secrets, and locked values they may not read), so
   * the runner scrubs it from anything it reports.
   */
  secretValues: string[];
}

/**
 * The variables a check run may use: the account's, overridden by its group's. Secrets are
 * decrypted here, in the process that runs the check, and nowhere else.
 *
 * A run always substitutes every value (the check must work); what it reports follows the one
 * masking rule. `viewer` is who reads the report: an unsaved test run's caller. Without one the
 * report is stored, and stored results are read by everyone in the account, so every locked
 * value is scrubbed like a secret.
 */
export async function resolveRunVariables(
  readModels: ReadModels,
  box: SecretBox,
  accountId: string,
  group: CheckGroupView['group'] | null,
  viewer?: Viewer,
): Promise<RunVariables> {
  const variables: Record<string, string> = {};
  const hidden = new Set<string>();
  const hide = (variable: MaskableVariable, value: string) => {
    const readable = viewer ? mayRead(variable, viewer) : !variable.secret && !variable.locked;
    if (!readable && value !== '') hidden.add(value);
  };
  const { items } = await readModels.variables(accountId);
  for (const variable of items) {
    const value = variable.encrypted ? box.decrypt(variable.value) : variable.value;
    variables[variable.key] = value;
    hide({ ...variable, value }, value);
  }
  for (const variable of group?.environmentVariables ?? []) {
    variables[variable.key] = variable.value;
    hide(variable, variable.value);
  }
  return { variables, secretValues: [...hidden] };
}
