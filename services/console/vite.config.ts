import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The SDK reads paths from disk only in Node (uploads of a file path); the browser always passes
// File objects, so its node: imports resolve to a shim that throws if ever reached.
const nodeShim = fileURLToPath(new URL('./src/lib/node-shim.ts', import.meta.url));

export default defineConfig({
  base: '/',
  plugins: [react()],
  resolve: { alias: [{ find: /^node:(fs|fs\/promises|path|crypto)$/, replacement: nodeShim }] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No inline polyfill script: the gateway's Content-Security-Policy allows scripts from 'self' only.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    chunkSizeWarningLimit: 600,
  },
  server: { proxy: { '/v1': process.env.DOCFLEET_URL ?? 'http://127.0.0.1:8080' } },
});
