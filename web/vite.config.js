// Static build of the playground: `npm run build` → dist/ (plain files for any static host).
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  publicDir: false,
  build: {
    outDir: resolve(here, '../dist'),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      input: {
        index: resolve(here, 'index.html'),
        docs: resolve(here, 'docs-example.html'),
      },
    },
  },
  worker: { format: 'es' },
  server: { fs: { allow: [resolve(here, '..')] } },
});
