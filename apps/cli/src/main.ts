import { CommanderError } from 'commander';
import { CliError, EXIT_API, EXIT_OK, EXIT_USAGE } from './errors.ts';
import { createOutput } from './output.ts';
import { buildProgram } from './program.ts';

/** Runs one command line and returns the exit code; never calls process.exit, so output is flushed. */
export async function main(argv: string[]): Promise<number> {
  // `vigil env ls | head -1` closes the pipe early; that is the reader's choice, not a failure.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT_OK);
    throw error;
  });
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return EXIT_OK;
  } catch (error) {
    // Commander has already printed its message (or the help); only the code is left to decide.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    const out = createOutput(false);
    if (error instanceof CliError) {
      out.error(error.message);
      return error.exitCode;
    }
    out.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return EXIT_API;
  }
}
