import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { promisify } from 'node:util';
import { benchConfig } from '../config.ts';
import { repoRoot } from './processes.ts';

const run = promisify(execFile);

const script = (command: 'up' | 'down') =>
  run('bash', [`${repoRoot}bench/support/postgres.sh`, command], {
    env: { ...benchConfig.childEnv, BENCH_POSTGRES_PORT: String(benchConfig.postgresPort) },
    timeout: 600_000,
  });

/** Starts the throwaway cluster (installing PostgreSQL if missing); postgresDown stops it, keeping its data. */
export const postgresUp = () => script('up').then(() => undefined);
export const postgresDown = () => script('down').then(() => undefined);

const connection = (database: string) => [
  '-h',
  '127.0.0.1',
  '-p',
  String(benchConfig.postgresPort),
  '-U',
  'postgres',
  '-d',
  database,
  '-X',
  '-q',
  '-A',
  '-t',
  '-v',
  'ON_ERROR_STOP=1',
];

/** One statement through psql, for set-up. */
export async function psql(database: string, sql: string): Promise<string> {
  const { stdout } = await run('psql', [...connection(database), '-c', sql], {
    env: benchConfig.childEnv,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** Streams CSV lines into `COPY table FROM STDIN`; lines() yields chunks of text. */
export async function copyIn(database: string, table: string, lines: Iterable<string>): Promise<void> {
  const child = spawn('psql', [...connection(database), '-c', `\\copy ${table} FROM STDIN WITH (FORMAT csv)`], {
    env: benchConfig.childEnv,
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
  for (const chunk of lines) {
    if (!child.stdin.write(chunk)) await new Promise((resolve) => child.stdin.once('drain', resolve));
  }
  child.stdin.end();
  if ((await exited) !== 0) throw new Error(`COPY failed: ${errors}`);
}

/**
 * A persistent psql session: queries go down one connection, as an application's pool would use,
 * and psql's own \timing gives the client-side time of each (send → last row received).
 */
export class PsqlSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = '';
  private errors = '';
  private waiting: ((text: string) => void) | undefined;

  constructor(database: string) {
    this.child = spawn(
      'psql',
      connection(database).filter((arg) => arg !== 'ON_ERROR_STOP=1' && arg !== '-v'),
      { env: benchConfig.childEnv },
    );
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString();
      const end = this.buffer.indexOf('__END__\n');
      if (end >= 0 && this.waiting) {
        const text = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 8);
        const resolve = this.waiting;
        this.waiting = undefined;
        resolve(text);
      }
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.errors += chunk.toString()));
    this.child.stdin.write('\\timing on\n');
  }

  /** Runs one query; returns psql's timing in ms. */
  async time(sql: string): Promise<number> {
    const output = await new Promise<string>((resolve) => {
      this.waiting = resolve;
      this.child.stdin.write(`${sql.replace(/;\s*$/, '')};\n\\echo __END__\n`);
    });
    if (this.errors) throw new Error(`PostgreSQL: ${this.errors}`);
    const match = /Time: ([\d.]+) ms/.exec(output);
    if (!match) throw new Error(`no timing in psql output: ${output.slice(0, 300)}`);
    return Number(match[1]);
  }

  close(): void {
    this.child.stdin.end('\\q\n');
  }
}
