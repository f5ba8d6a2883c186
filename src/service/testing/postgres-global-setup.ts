// Vitest global setup of the `postgres` project: one throwaway PostgreSQL cluster for the run;
// every service a test starts gets a fresh database in it (start-test-service.ts).
import type { TestProject } from 'vitest/node';
import { startThrowawayPostgres, type ThrowawayPostgres } from './postgres-server';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

let server: ThrowawayPostgres | undefined;

export async function setup(project: TestProject) {
  server = await startThrowawayPostgres();
  if (!server) throw new Error('the postgres test project needs PostgreSQL (Debian package postgresql; .ci/run installs it)');
  project.provide('postgresUrl', server.url);
}

export async function teardown() {
  await server?.stop();
}
