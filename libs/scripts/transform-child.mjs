// The script compiler's own process, forked by transform.ts. esbuild parses user code recursively
// and a hostile script can crash its service (a Go stack overflow ends it, and every later call
// then fails): here that takes down only this process, whose output nobody reads, and the runner
// starts a fresh one. Plain JavaScript, so it forks the same way from the sources and from dist/.
import { build } from 'esbuild';

const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

function outputPath(path, format) {
  return path.replace(SOURCE, format === 'cjs' ? '.js' : '.mjs');
}

/**
 * Playwright Test imports get the harness's module; relative imports of sources their transformed
 * names; everything else stays for Node to resolve in the sandbox.
 */
function specifiers(format, harness) {
  return {
    name: 'vigil-specifiers',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (args.path === '@playwright/test' || args.path === 'playwright/test')
          return { path: `${harness}/test.${format === 'cjs' ? 'cjs' : 'mjs'}`, external: true };
        if (args.path.startsWith('.') && SOURCE.test(args.path))
          return { path: outputPath(args.path, format), external: true };
        return { path: args.path, external: true };
      });
    },
  };
}

async function compile({ path, contents, loader, format, target, harness }) {
  const result = await build({
    stdin: { contents, loader, sourcefile: path, resolveDir: '/' },
    bundle: true,
    write: false,
    platform: 'node',
    target,
    format,
    logLevel: 'silent',
    // No source maps: with them esbuild follows a `//# sourceMappingURL=<path>` comment in the
    // script and reads that file on this host (as the runner's user) into the compiled output.
    sourcemap: false,
    plugins: [specifiers(format, harness)],
    ...(format === 'esm'
      ? {
          banner: {
            js: "import { createRequire as __vigilCreateRequire } from 'node:module';\nconst require = __vigilCreateRequire(import.meta.url);",
          },
        }
      : {}),
  });
  return result.outputFiles[0].text;
}

process.on('message', async (message) => {
  try {
    process.send({ id: message.id, ok: true, code: await compile(message) });
  } catch (error) {
    // esbuild's service died (the script overflowed its stack): every later call would fail too.
    const crashed = /service (?:was stopped|is no longer running)/i.test(String(error?.message));
    const errors = Array.isArray(error?.errors)
      ? error.errors.map((entry) => ({ text: String(entry.text), location: entry.location ?? null }))
      : [{ text: String(error?.message ?? error), location: null }];
    process.send({ id: message.id, ok: false, crashed, errors }, () => {
      if (crashed) process.exit(1);
    });
  }
});
process.on('disconnect', () => process.exit(0));
