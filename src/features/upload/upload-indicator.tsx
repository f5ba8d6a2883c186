// Header indicator of the upload in progress. Kept tiny: it reads the status store and, when
// a batch was saved before a reload, loads the upload session (lazily) so it carries on.
import { useEffect, useSyncExternalStore } from 'react';
import { Link } from 'react-router';
import './upload-indicator.css';
import { getUploadStatus, hasSavedBatch, subscribeUploadStatus } from './upload-status';

export function UploadIndicator() {
  const status = useSyncExternalStore(subscribeUploadStatus, getUploadStatus, getUploadStatus);

  useEffect(() => {
    if (!hasSavedBatch()) return;
    void import('./upload-session').then((m) => m.uploadSession.restore()).catch(() => undefined);
  }, []);

  if (!status.active && !status.attention) return null;
  const percent = status.bytesTotal > 0 ? Math.round((status.bytesSent / status.bytesTotal) * 100) : 0;
  return (
    <Link
      to="/upload"
      className={`upload-indicator${status.attention ? ' upload-indicator--attention' : ''}`}
      data-testid="upload-indicator"
      title={`${status.filesDone} of ${status.filesTotal} files done`}
    >
      <span className="upload-indicator__label">{status.label}</span>
      {status.active && status.bytesSent < status.bytesTotal && (
        <span
          className="upload-indicator__bar"
          role="progressbar"
          aria-label="Upload progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
        >
          <span style={{ width: `${percent}%` }} />
        </span>
      )}
    </Link>
  );
}
