import { useState } from 'react';
import type { ConfigProblem } from './config';
import { FullPageWait } from '../ui/full-page-wait';

export function StartupLoading() {
  return (
    <FullPageWait>
      <p>Starting Geometric Search Workbench…</p>
    </FullPageWait>
  );
}

function Explanation({ problem }: { problem: ConfigProblem }) {
  switch (problem.kind) {
    case 'config-unreachable':
      return (
        <>
          <h1>The app could not load its settings</h1>
          <p>
            It asked for <code>{problem.url}</code> and got: <strong>{problem.detail}</strong>.
          </p>
          <h2>How to fix it</h2>
          <ul>
            <li>
              Serve a <code>config.json</code> next to <code>index.html</code>. The embedded service does this: run <code>npm start</code>{' '}
              and open the address it prints.
            </li>
            <li>
              If you host the built app yourself, copy <code>public/config.json</code> into the web root.
            </li>
            <li>If the service was just restarting, retry.</li>
          </ul>
        </>
      );
    case 'config-invalid':
      return (
        <>
          <h1>The app's settings are not valid</h1>
          <p>
            <code>{problem.url}</code> has these problems:
          </p>
          <ul className="issues">
            {problem.issues.map((issue) => (
              <li key={issue}>
                <code>{issue}</code>
              </li>
            ))}
          </ul>
          <h2>How to fix it</h2>
          <p>It must be JSON with four text fields, for example:</p>
          <pre className="code">
            {JSON.stringify(
              { baseUrl: '/', authUrl: '/', clientId: 'workbench-app', scopes: 'openid profile tenant roles offline_access' },
              null,
              2,
            )}
          </pre>
          <p>
            <code>baseUrl</code> serves the API, <code>authUrl</code> the sign-in service (relative values like <code>/</code> mean this
            site). Edit the file, then retry.
          </p>
        </>
      );
    case 'identity-unreachable':
      return (
        <>
          <h1>The sign-in service is not answering</h1>
          <p>
            The app asked the identity provider for <code>{problem.url}</code> and got: <strong>{problem.detail}</strong>.
          </p>
          <h2>How to fix it</h2>
          <ul>
            <li>
              Check that <code>authUrl</code> in <code>config.json</code> points at your identity provider (its issuer is{' '}
              <code>{'{authUrl}'}/oauth2/default</code>).
            </li>
            <li>
              With the embedded service, make sure it is running (<code>npm start</code>).
            </li>
            <li>If the provider is on another site, it must allow this site (CORS).</li>
          </ul>
        </>
      );
    case 'app-unavailable':
      return (
        <>
          <h1>The app could not finish loading</h1>
          <p>
            Part of the app's code did not arrive: <strong>{problem.detail}</strong>.
          </p>
          <h2>How to fix it</h2>
          <p>Reload the page. If the app was just updated or the service restarted, this usually fixes it.</p>
        </>
      );
  }
}

export function StartupError({ problem, onRetry }: { problem: ConfigProblem; onRetry: () => Promise<void> }) {
  const [retrying, setRetrying] = useState(false);
  return (
    <main className="full-page">
      <div className="full-page__card full-page__card--wide" role="alert">
        <p className="eyebrow">Geometric Search Workbench</p>
        <Explanation problem={problem} />
        <div className="actions">
          <button
            type="button"
            className="button button--primary"
            disabled={retrying}
            onClick={() => {
              setRetrying(true);
              void onRetry().finally(() => setRetrying(false));
            }}
          >
            {retrying ? 'Retrying…' : 'Retry'}
          </button>
        </div>
      </div>
    </main>
  );
}
