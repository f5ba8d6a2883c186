import { useState } from 'react';
import { formatBytes } from '../../ui/format-bytes';
import { imageReason, type PickedImage, type SelectionState } from './selection';

function Preview({ image }: { image: PickedImage }) {
  const [failed, setFailed] = useState(false);
  if (!image.previewUrl || failed) {
    return (
      <div className="picked__thumb picked__thumb--none" aria-hidden="true">
        <span>{failed ? 'No preview' : (image.name.split('.').pop() ?? '').toUpperCase() || 'FILE'}</span>
      </div>
    );
  }
  // A file that claims to be an image but is not one cannot be drawn; the service will say why.
  return <img className="picked__thumb" src={image.previewUrl} alt="" onError={() => setFailed(true)} />;
}

function Status({ image, reason }: { image: PickedImage; reason: string | null }) {
  if (reason) {
    return (
      <p className="picked__reason" data-testid="image-reason">
        {reason}
      </p>
    );
  }
  switch (image.upload.kind) {
    case 'sending': {
      const percent = image.upload.total > 0 ? Math.round((100 * image.upload.loaded) / image.upload.total) : 0;
      return (
        <div className="picked__status">
          <span>Sending… {percent}%</span>
          <span
            className="picked__bar"
            role="progressbar"
            aria-label={`Sending ${image.name}`}
            aria-valuenow={percent}
            aria-valuemin={0}
            aria-valuemax={100}
          >
            <span style={{ width: `${percent}%` }} />
          </span>
        </div>
      );
    }
    case 'sent':
      return <p className="picked__status picked__status--ok">Sent</p>;
    case 'failed':
      return <p className="picked__status">Will be sent again</p>;
    default:
      return <p className="picked__status">Ready</p>;
  }
}

/** The picked images as thumbnails, each with its size, state or reason, and a remove button. */
export function SelectedImages({ state, onRemove, busy }: { state: SelectionState; onRemove: (key: string) => void; busy: boolean }) {
  if (state.images.length === 0) return null;
  return (
    <ul className="picked" aria-label="Selected images">
      {state.images.map((image) => {
        const reason = imageReason(state, image.key);
        return (
          <li key={image.key} className={`picked__item${reason ? ' picked__item--problem' : ''}`} data-testid="picked-image">
            <Preview image={image} />
            <div className="picked__body">
              <p className="picked__name" title={image.name}>
                {image.name || 'Pasted image'}
              </p>
              <p className="picked__size muted">{formatBytes(image.size)}</p>
              <Status image={image} reason={reason} />
            </div>
            <button
              type="button"
              className="picked__remove"
              aria-label={`Remove ${image.name || 'pasted image'}`}
              title="Remove"
              onClick={() => onRemove(image.key)}
              disabled={busy && image.upload.kind === 'sending'}
            >
              <span aria-hidden="true">×</span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
