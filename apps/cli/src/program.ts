import { Command } from 'commander';
import { registerAccounts } from './commands/accounts.ts';
import { registerAdmin } from './commands/admin.ts';
import { registerAlertChannels } from './commands/alert-channels.ts';
import { registerAnalytics } from './commands/analytics.ts';
import { registerApi } from './commands/api.ts';
import { registerCheckGroups } from './commands/check-groups.ts';
import { registerChecks } from './commands/checks.ts';
import { registerCompletion } from './commands/completion.ts';
import { registerDeploy } from './commands/deploy.ts';
import { registerMembers } from './commands/members.ts';
import { registerEnv } from './commands/env.ts';
import { registerLogin } from './commands/login.ts';
import { registerMaintenanceWindows } from './commands/maintenance-windows.ts';
import { registerMetrics } from './commands/metrics.ts';
import { registerResults } from './commands/results.ts';
import { registerRuntimes } from './commands/runtimes.ts';
import { registerSimulate } from './commands/simulate.ts';
import { registerStatusPages } from './commands/status-pages.ts';
import { example } from './kit.ts';

export const VERSION = '0.1.0';

export interface OutputConfig {
  writeOut?: (text: string) => void;
  writeErr?: (text: string) => void;
}

/**
 * The whole command tree. Settings made here (exitOverride, help, output) are inherited by every
 * subcommand created with `.command()`, which is why the register functions take their parent.
 */
export function buildProgram(output: OutputConfig = {}): Command {
  const program = new Command('vigil')
    .description('Command-line client for the Vigil monitoring API')
    .version(VERSION, '-V, --version')
    .option('--json', 'print JSON instead of tables')
    .option('--get <field>', 'print only this field of the result (e.g. id, account.id), for scripts')
    .option('--api-url <url>', 'API address (default: VIGIL_API_URL, then the stored one, then http://127.0.0.1:3000)')
    .option('--account <id>', 'account id sent as X-Service-Account (default: VIGIL_ACCOUNT_ID, then the stored one)')
    .option('--config-dir <dir>', 'where login keeps credentials (default: VIGIL_CONFIG_DIR, then ~/.config/vigil)')
    .configureHelp({ showGlobalOptions: true })
    .configureOutput(output)
    .showHelpAfterError('(add --help for usage)')
    .exitOverride();
  example(
    program,
    'vigil login',
    'vigil env ls',
    'vigil analytics api <checkId> --metrics responseTime_avg,availability --range last7Days',
  );

  registerLogin(program);
  registerAccounts(program);
  registerEnv(program);
  registerRuntimes(program);
  registerChecks(program);
  registerCheckGroups(program);
  registerAnalytics(program);
  registerMetrics(program);
  registerAlertChannels(program);
  registerMaintenanceWindows(program);
  registerResults(program);
  registerStatusPages(program);
  registerSimulate(program);
  registerAdmin(program);
  registerApi(program);
  registerMembers(program);
  registerDeploy(program);
  registerCompletion(program);
  return program;
}
