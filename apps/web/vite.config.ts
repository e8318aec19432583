import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// Everything is bundled into dist/ (no CDN); the API app serves it at /.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [preact()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 400,
    rolldownOptions: {
      output: {
        // The script editor (CodeMirror) is loaded only when a script is edited; two chunks fetched
        // in parallel instead of one of ~450 kB. Nothing else goes into them.
        codeSplitting: {
          groups: [
            {
              name: 'codemirror-view',
              test: /node_modules[\\/](@codemirror[\\/](view|state)|style-mod|w3c-keyname|crelt)[\\/]/,
            },
            { name: 'codemirror-lang', test: /node_modules[\\/](@codemirror|@lezer)[\\/]/ },
          ],
        },
      },
    },
  },
  logLevel: 'warn',
});
