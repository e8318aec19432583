import type { Command } from 'commander';
import { DEFAULT_API_URL, defaultConfigDir, readEnv, type CliEnv } from './config.ts';
import { UsageError } from './errors.ts';
import { ApiClient } from './http.ts';
import { createOutput, type Output } from './output.ts';
import { configFile, loadStored, type Stored } from './store.ts';

/** The options every command inherits from the program. */
export interface GlobalOptions {
  json?: boolean;
  get?: string;
  configDir?: string;
  apiUrl?: string;
  account?: string;
}

export interface Credentials {
  apiUrl: string;
  apiKey: string | undefined;
  accountId: string | undefined;
  /** Where the key came from, for whoami. */
  keySource: 'VIGIL_API_KEY' | 'config file' | null;
}

/** Everything an action needs: output, credentials resolved flag > env > stored > default, clients. */
export class Context {
  readonly out: Output;
  readonly env: CliEnv;
  readonly configDir: string;
  private storedCache: Stored | undefined;

  constructor(readonly options: GlobalOptions) {
    this.out = createOutput(options.json === true || options.get !== undefined, options.get);
    this.env = readEnv();
    this.configDir = options.configDir ?? this.env.configDir ?? defaultConfigDir();
  }

  get stored(): Stored {
    this.storedCache ??= loadStored(this.configDir, (message) => this.out.warn(message));
    return this.storedCache;
  }

  get apiUrl(): string {
    return (this.options.apiUrl ?? this.env.apiUrl ?? this.stored.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, '');
  }

  credentials(): Credentials {
    const apiKey = this.env.apiKey ?? this.stored.apiKey;
    return {
      apiUrl: this.apiUrl,
      apiKey,
      accountId: this.options.account ?? this.env.accountId ?? this.stored.accountId,
      keySource: this.env.apiKey ? 'VIGIL_API_KEY' : apiKey ? 'config file' : null,
    };
  }

  /** How an auth error names the key: the variable, or the login's file. */
  private sourceName(source: Credentials['keySource']): string | undefined {
    if (source === 'config file') return `the login in ${configFile(this.configDir)}`;
    return source ?? undefined;
  }

  /** A client for account-scoped routes. */
  client(): ApiClient {
    const { apiUrl, apiKey, accountId } = this.credentials();
    if (!apiKey) throw new UsageError('Not logged in: run `vigil login` or set VIGIL_API_KEY');
    return new ApiClient(apiUrl, apiKey, accountId, this.sourceName(this.credentials().keySource));
  }

  adminClient(): ApiClient {
    if (!this.env.adminKey)
      throw new UsageError('VIGIL_ADMIN_KEY is not set: this command needs the platform admin key');
    return new ApiClient(this.apiUrl, this.env.adminKey, undefined, 'VIGIL_ADMIN_KEY');
  }

  /**
   * Result ingestion: the platform ingest key when set (any account), else the account key of the
   * login or VIGIL_API_KEY (its own checks), else the platform admin key.
   */
  ingestClient(): ApiClient {
    if (this.env.ingestKey) return new ApiClient(this.apiUrl, this.env.ingestKey, undefined, 'VIGIL_INGEST_KEY');
    const { apiKey, accountId, keySource } = this.credentials();
    if (apiKey) return new ApiClient(this.apiUrl, apiKey, accountId, this.sourceName(keySource));
    if (this.env.adminKey) return new ApiClient(this.apiUrl, this.env.adminKey, undefined, 'VIGIL_ADMIN_KEY');
    throw new UsageError(
      'No key to send results with: run `vigil login`, or set VIGIL_API_KEY, VIGIL_INGEST_KEY or VIGIL_ADMIN_KEY',
    );
  }
}

/** Commander hands every action its own Command last; the globals sit on the root. */
export function contextOf(command: Command): Context {
  return new Context(command.optsWithGlobals<GlobalOptions>());
}
