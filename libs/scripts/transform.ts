import { fork, type ChildProcess } from 'node:child_process';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the harness directory is bound inside the sandbox. */
export const HARNESS_INSIDE = '/vigil';
/** Where the runtime's node_modules is bound: the first place Node looks for a bare name from /work. */
export const MODULES_INSIDE = '/node_modules';
/** A compile that takes longer is treated as hostile. */
export const TRANSFORM_TIMEOUT_MS = 15_000;

const LOADERS: Record<string, string> = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'jsx',
};
const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const CRASHED = 'the script could not be compiled: the compiler stopped on it';
const CHILD = fileURLToPath(new URL('./transform-child.mjs', import.meta.url));

export function isSource(path: string): boolean {
  return SOURCE.test(path);
}

/** A source's path once transformed: CommonJS under .js, or ESM under .mjs. */
export function outputPath(path: string, format: 'cjs' | 'esm'): string {
  return path.replace(SOURCE, format === 'cjs' ? '.js' : '.mjs');
}

export class ScriptSyntaxError extends Error {}

interface CompileError {
  text: string;
  location: { line: number; column: number } | null;
}
type Reply =
  { id: number; ok: true; code: string } | { id: number; ok: false; crashed?: boolean; errors: CompileError[] };
interface Pending {
  resolve(reply: Reply): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export interface Transformer {
  /**
   * Strips types and normalises one source to CommonJS, here in the runner before the run: import
   * and require then both work, and so do ESM-only packages (Node's require of ESM). A module with
   * top-level await cannot be CommonJS; it becomes ESM with a `require` of its own instead.
   */
  transform(path: string, contents: string, nodeVersion: string): Promise<{ format: 'cjs' | 'esm'; code: string }>;
  close(): void;
}

/** esbuild in a child process of its own (transform-child.mjs), restarted when a script kills it. */
export function createTransformer(): Transformer {
  let child: Compiler | undefined;
  let nextId = 1;

  /** One compiler process with the compiles waiting on it: when it dies, only those fail. */
  interface Compiler {
    process: ChildProcess;
    pending: Map<number, Pending>;
  }

  function retire(compiler: Compiler, why: string): void {
    if (child === compiler) child = undefined;
    for (const [id, entry] of compiler.pending) {
      clearTimeout(entry.timer);
      compiler.pending.delete(id);
      entry.reject(new ScriptSyntaxError(why));
    }
    compiler.process.kill('SIGKILL');
  }

  function start(): Compiler {
    // Nothing it prints is read: a crashing compiler writes a stack dump of many megabytes.
    const worker = fork(CHILD, [], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], execArgv: [] });
    const compiler: Compiler = { process: worker, pending: new Map() };
    worker.on('message', (reply: Reply) => {
      // A crashed compiler takes no more work, whatever it still answers.
      if (!reply.ok && reply.crashed && child === compiler) child = undefined;
      const entry = compiler.pending.get(reply.id);
      if (!entry) return;
      clearTimeout(entry.timer);
      compiler.pending.delete(reply.id);
      entry.resolve(reply);
    });
    worker.once('exit', () => retire(compiler, CRASHED));
    worker.on('error', () => undefined);
    worker.unref();
    return compiler;
  }

  function compile(message: Record<string, unknown>): Promise<Reply> {
    child ??= start();
    const compiler = child;
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        compiler.pending.delete(id);
        reject(new ScriptSyntaxError(`the script could not be compiled within ${TRANSFORM_TIMEOUT_MS} ms`));
        // Other compiles in it are cut too; they fail the same way and the next one starts afresh.
        retire(compiler, CRASHED);
      }, TRANSFORM_TIMEOUT_MS);
      compiler.pending.set(id, { resolve, reject, timer });
      compiler.process.send({ id, ...message }, (error) => {
        if (error) retire(compiler, 'the script could not be compiled: the compiler is not running');
      });
    });
  }

  return {
    async transform(path, contents, nodeVersion) {
      const loader = LOADERS[posix.extname(path)] ?? 'ts';
      const target = `node${nodeVersion.replace(/^v/, '').split('.').slice(0, 2).join('.')}`;
      const common = { path, contents, loader, target, harness: HARNESS_INSIDE };
      const cjs = await compile({ ...common, format: 'cjs' });
      if (cjs.ok) return { format: 'cjs', code: cjs.code };
      if (cjs.crashed) throw new ScriptSyntaxError(CRASHED);
      if (!cjs.errors.some((error) => /top-level await/i.test(error.text)))
        throw new ScriptSyntaxError(describe(path, cjs.errors));
      const esm = await compile({ ...common, format: 'esm' });
      if (esm.ok) return { format: 'esm', code: esm.code };
      if (esm.crashed) throw new ScriptSyntaxError(CRASHED);
      throw new ScriptSyntaxError(describe(path, esm.errors));
    },
    close() {
      if (child) retire(child, 'the script runner closed');
    },
  };
}

function describe(path: string, errors: CompileError[]): string {
  const first = errors[0];
  if (!first) return `${path}: does not compile`;
  const where = first.location ? `${path}:${first.location.line}:${first.location.column + 1}` : path;
  return `${where}: ${first.text.slice(0, 500)}`;
}
