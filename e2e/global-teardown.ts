import { rmSync } from 'node:fs';

// Playwright stops the web servers only after this runs, so a server may still be writing into its
// data directory (an upload the last test left in flight); retrying lets those writes settle.
export default function globalTeardown(): void {
  for (const dir of [process.env.E2E_DATA_DIR, process.env.E2E_PUBLISHED_DATA_DIR]) {
    if (!dir) continue;
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
    } catch (error) {
      console.warn(`The e2e data directory ${dir} could not be removed: ${(error as Error).message}`);
    }
  }
}
