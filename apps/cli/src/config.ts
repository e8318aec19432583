import envPaths from 'env-paths';

/**
 * The only module of the CLI that reads the environment. Flags beat these variables, and these
 * variables beat what `vigil login` stored.
 */
export interface CliEnv {
  apiKey: string | undefined;
  accountId: string | undefined;
  apiUrl: string | undefined;
  adminKey: string | undefined;
  ingestKey: string | undefined;
  configDir: string | undefined;
}

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';

export function readEnv(env: NodeJS.ProcessEnv = process.env): CliEnv {
  const value = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    return raw ? raw : undefined;
  };
  return {
    apiKey: value('VIGIL_API_KEY'),
    accountId: value('VIGIL_ACCOUNT_ID'),
    apiUrl: value('VIGIL_API_URL'),
    adminKey: value('VIGIL_ADMIN_KEY'),
    ingestKey: value('VIGIL_INGEST_KEY'),
    configDir: value('VIGIL_CONFIG_DIR'),
  };
}

/**
 * A secret a project file names by variable (`serviceKey: {env: PD_ROUTING_KEY}`): read only
 * when deploy needs it, so a file without secrets never depends on the environment.
 */
export type SecretLookup = (name: string) => string | undefined;
export const projectSecret: SecretLookup = (name) => process.env[name]?.trim() || undefined;

/** XDG_CONFIG_HOME/vigil (~/.config/vigil) on Linux, the platform's usual place elsewhere. */
export function defaultConfigDir(): string {
  return envPaths('vigil', { suffix: '' }).config;
}

/** The environment for a child process (the simulator): ours plus the resolved credentials. */
export function childEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) env[name] = value;
  return env;
}
