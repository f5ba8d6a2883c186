import { useState } from 'react';
import { errorMessage } from '../api/client';
import { saveFile } from './save-file';

/**
 * A button that asks the service for a file and hands it to the browser: busy while it is made,
 * the service's refusal shown beside it. `make` answers the file's name and content.
 */
export function DownloadButton({
  label,
  busyLabel,
  problem,
  make,
}: {
  label: string;
  busyLabel: string;
  /** Starts the refusal's sentence, e.g. "The part list could not be downloaded". */
  problem: string;
  make: () => Promise<{ name: string; content: string | Blob }>;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const download = () => {
    setBusy(true);
    setError(null);
    make()
      .then(({ name, content }) => saveFile(name, content))
      .catch((e: unknown) => setError(errorMessage(e)))
      .finally(() => setBusy(false));
  };
  return (
    <>
      <button type="button" className="button button--small" onClick={download} disabled={busy} aria-busy={busy}>
        {busy ? busyLabel : label}
      </button>
      {error && (
        <p className="form-error" role="alert">
          {problem}: {error}
        </p>
      )}
    </>
  );
}
