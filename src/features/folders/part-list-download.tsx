import { fetchPartListCsv } from '../../api/models';
import type { Model } from '../../contract/models';
import { DownloadButton } from '../../ui/download-button';

/** The assembly's flattened part list (name, path, quantity, state, units) as a CSV file, as the service writes it. */
export function PartListDownload({ model }: { model: Model }) {
  return (
    <div className="assembly__export">
      <DownloadButton
        label="Download part list (CSV)"
        busyLabel="Preparing the part list…"
        problem="The part list could not be downloaded"
        make={async () => ({ name: `${model.name.replace(/\.[^.]+$/, '')} parts.csv`, content: await fetchPartListCsv(model.id) })}
      />
    </div>
  );
}
