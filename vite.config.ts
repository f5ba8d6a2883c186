import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    manifest: true,
  },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'app',
          environment: 'jsdom',
          include: ['src/{app,features,api,viewer}/**/*.test.{ts,tsx}'],
          setupFiles: ['src/app/test-setup.ts'],
        },
      },
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['src/{service,contract,geometry,bench}/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        // npm run test:reliability: the service as its own process, killed and restarted.
        test: {
          name: 'reliability',
          environment: 'node',
          include: ['src/reliability/**/*.test.ts'],
          testTimeout: 600_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
