import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist/app',
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
          include: ['src/{app,ui,features,api,viewer}/**/*.test.{ts,tsx}'],
          setupFiles: ['src/app/testing/test-setup.ts'],
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
        // npm run test:postgres: the service tests again, each service on a fresh database of a real
        // PostgreSQL server (without pgvector: the exact-scan search path) instead of PGlite.
        test: {
          name: 'postgres',
          environment: 'node',
          include: ['src/service/**/*.test.ts'],
          // These open the embedded database themselves (restarts, migrations), or start their own server.
          exclude: [
            'src/service/ingest/ingestion-limits.test.ts',
            'src/service/store/store.test.ts',
            'src/service/ingest/job-queue.test.ts',
          ],
          globalSetup: ['src/service/testing/postgres-global-setup.ts'],
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
          globalSetup: ['src/service/testing/build-service-global-setup.ts'],
          testTimeout: 600_000,
          hookTimeout: 300_000,
        },
      },
      {
        // npm run test:scale: API and worker processes on PostgreSQL and an S3-compatible server.
        test: {
          name: 'scale',
          environment: 'node',
          include: ['src/scale/**/*.test.ts'],
          globalSetup: ['src/service/testing/build-service-global-setup.ts'],
          testTimeout: 900_000,
          hookTimeout: 400_000,
        },
      },
    ],
  },
});
