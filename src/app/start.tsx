import type { Root } from 'react-dom/client';
import { loadStartup } from './config';
import { StartupError, StartupLoading } from './startup-screen';

/**
 * Loads the runtime config and checks the identity provider before the app exists;
 * any failure gets a full-page explanation with Retry instead of a blank page.
 */
export async function start(root: Root): Promise<void> {
  root.render(<StartupLoading />);
  // Fetch the app code while the settings load.
  const appModule = import('./app-instance');
  appModule.catch(() => undefined);
  const result = await loadStartup(window.location.origin);
  if (!result.ok) {
    root.render(<StartupError problem={result.problem} onRetry={() => start(root)} />);
    return;
  }
  try {
    const { App, createAppInstance } = await appModule;
    root.render(<App instance={createAppInstance(result.config)} />);
  } catch (error) {
    root.render(
      <StartupError
        problem={{ kind: 'app-unavailable', detail: error instanceof Error ? error.message : String(error) }}
        onRetry={async () => window.location.reload()}
      />,
    );
  }
}
