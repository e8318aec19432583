import type { Command } from 'commander';
import { DEFAULT_API_URL, defaultConfigDir, readEnv, type CliEnv } from './config.ts';
import { UsageError } from './errors.ts';
import { ApiClient } from './http.ts';
import { createOutput, type Output } from './output.ts';
import { loadStored, type Stored } from './store.ts';

/** The options every command inherits from the program. */
export interface GlobalOptions {
  json?: boolean;
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
    this.out = createOutput(options.json === true);
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

  /** A client for account-scoped routes. */
  client(): ApiClient {
    const { apiUrl, apiKey, accountId } = this.credentials();
    if (!apiKey) throw new UsageError('Not logged in: run `vigil login` or set VIGIL_API_KEY');
    return new ApiClient(apiUrl, apiKey, accountId);
  }

  adminClient(): ApiClient {
    if (!this.env.adminKey)
      throw new UsageError('VIGIL_ADMIN_KEY is not set: this command needs the platform admin key');
    return new ApiClient(this.apiUrl, this.env.adminKey);
  }

  /** Result ingestion takes the ingest key; the admin key works too. */
  ingestClient(): ApiClient {
    const key = this.env.ingestKey ?? this.env.adminKey;
    if (!key)
      throw new UsageError(
        'VIGIL_INGEST_KEY is not set: sending results needs the platform ingest key (or VIGIL_ADMIN_KEY)',
      );
    return new ApiClient(this.apiUrl, key);
  }
}

/** Commander hands every action its own Command last; the globals sit on the root. */
export function contextOf(command: Command): Context {
  return new Context(command.optsWithGlobals<GlobalOptions>());
}
