import { useState } from 'react';
import { errorMessage } from '../../api/client';
import { fetchPartListCsv } from '../../api/models';
import type { Model } from '../../contract/models';
import { saveFile } from '../../ui/save-file';

/** The assembly's flattened part list (name, path, quantity, state, units) as a CSV file, as the service writes it. */
export function PartListDownload({ model }: { model: Model }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const download = () => {
    setBusy(true);
    setError(null);
    fetchPartListCsv(model.id)
      .then((csv) => saveFile(`${model.name.replace(/\.[^.]+$/, '')} parts.csv`, csv))
      .catch((e: unknown) => setError(errorMessage(e)))
      .finally(() => setBusy(false));
  };
  return (
    <div className="assembly__export">
      <button type="button" className="button button--small" onClick={download} disabled={busy} aria-busy={busy}>
        {busy ? 'Preparing the part list…' : 'Download part list (CSV)'}
      </button>
      {error && (
        <p className="form-error" role="alert">
          The part list could not be downloaded: {error}
        </p>
      )}
    </div>
  );
}
