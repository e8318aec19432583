import { defaultConfigDir } from '../../cli/src/config.ts';
import { loadStored } from '../../cli/src/store.ts';

/**
 * The only module of the simulator that reads the environment. The variables are the ones the
 * `vigil simulate` command passes on (VIGIL_API_URL, VIGIL_API_KEY, VIGIL_ACCOUNT_ID) and the
 * platform's own names for the rest; every one of them is a default a flag can override.
 */
export interface SimulatorEnv {
  apiUrl: string | undefined;
  apiKey: string | undefined;
  accountId: string | undefined;
  /** VIGIL_INGEST_KEY, or else the admin key, which the ingest route also takes. */
  ingestKey: string | undefined;
  kafkaBrokers: string | undefined;
  topicPrefix: string | undefined;
}

export function readEnv(env: NodeJS.ProcessEnv = process.env): SimulatorEnv {
  const value = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    return raw ? raw : undefined;
  };
  // Like the CLI: what `vigil login` stored fills in whatever the environment leaves out.
  const stored = value('VIGIL_API_KEY')
    ? {}
    : loadStored(value('VIGIL_CONFIG_DIR') ?? defaultConfigDir(), (message) => process.stderr.write(`${message}\n`));
  const apiKey = value('VIGIL_API_KEY') ?? stored.apiKey;
  return {
    apiUrl: value('VIGIL_API_URL') ?? stored.apiUrl,
    apiKey,
    accountId: value('VIGIL_ACCOUNT_ID') ?? stored.accountId,
    // An account key may send results for its own checks, which are the ones the simulator registers.
    ingestKey: value('VIGIL_INGEST_KEY') ?? value('VIGIL_ADMIN_KEY') ?? apiKey,
    kafkaBrokers: value('KAFKA_BROKERS'),
    topicPrefix: value('KAFKA_TOPIC_PREFIX'),
  };
}
