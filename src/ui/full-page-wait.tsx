import type { ReactNode } from 'react';

/** The whole window while the app is getting going (starting, signing in): a spinner and a line. */
export function FullPageWait({ children }: { children: ReactNode }) {
  return (
    <main className="full-page" aria-busy="true">
      <div className="full-page__card">
        <p className="spinner" aria-hidden="true" />
        {children}
      </div>
    </main>
  );
}
