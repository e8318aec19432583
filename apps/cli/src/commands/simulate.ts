import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Option, type Command } from 'commander';
import { childEnv } from '../config.ts';
import { contextOf } from '../context.ts';
import { CliError, UsageError } from '../errors.ts';
import { example } from '../kit.ts';

// The simulator belongs to the pipeline (apps/simulator); the CLI only starts it, with its credentials.
const SIMULATOR = fileURLToPath(new URL('../../../simulator/src/main.ts', import.meta.url));

interface SimulateOptions {
  checks?: string;
  rate?: string;
  duration?: string;
  transport?: string;
}

export function registerSimulate(program: Command): void {
  const simulate = program
    .command('simulate')
    .description('register demo checks and send them realistic results (runs the simulator of apps/simulator)')
    .option('--checks <n>', 'how many checks to register')
    .option('--rate <n>', 'results per second')
    .option('--duration <seconds>', 'how long to run')
    .addOption(
      new Option('--transport <transport>', 'send over the HTTP API or straight to Kafka').choices(['http', 'kafka']),
    )
    .argument('[args...]', 'further options, passed to the simulator as they are')
    .allowUnknownOption()
    .action(async (args: string[], options: SimulateOptions, command: Command) => {
      const ctx = contextOf(command);
      if (!existsSync(SIMULATOR)) {
        throw new CliError(
          `The simulator is not part of this installation (${SIMULATOR} is missing); it comes with the pipeline (apps/simulator)`,
        );
      }
      const credentials = ctx.credentials();
      if (!credentials.apiKey && !args.some((arg) => arg === '--api-key' || arg.startsWith('--api-key='))) {
        throw new UsageError(
          'Not logged in: run `vigil login` or set VIGIL_API_KEY (the simulator registers its checks with that key)',
        );
      }
      const forwarded = [
        ...(['checks', 'rate', 'duration', 'transport'] as const).flatMap((name) =>
          options[name] === undefined ? [] : [`--${name}`, String(options[name])],
        ),
        // --json is a global option of vigil, so commander keeps it; the simulator has its own.
        ...(ctx.out.json ? ['--json'] : []),
        ...args,
      ];
      const env = childEnv({
        VIGIL_API_URL: credentials.apiUrl,
        VIGIL_API_KEY: credentials.apiKey,
        VIGIL_ACCOUNT_ID: credentials.accountId,
      });
      const code = await new Promise<number>((resolve, reject) => {
        // tsx resolved from here, not from the working directory, where it may not be installed.
        const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), SIMULATOR, ...forwarded], {
          stdio: 'inherit',
          env,
        });
        child.on('error', reject);
        child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
      });
      if (code !== 0) throw new CliError(`The simulator exited with code ${code}`, code);
    });
  example(
    simulate,
    'vigil simulate --checks 50 --rate 500 --duration 60',
    'vigil simulate --transport kafka --checks 10',
  );
}
