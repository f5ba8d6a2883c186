// Header indicator of the upload in progress. Kept tiny: it reads the status store and, when
// a batch was saved before a reload, loads the upload session (lazily) so it carries on.
import { useEffect, useRef, useSyncExternalStore } from 'react';
import { Link } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { folderQueries } from '../../api/folders';
import { modelQueries } from '../../api/models';
import './upload-indicator.css';
import { getUploadStatus, hasSavedBatch, subscribeUploadStatus } from './upload-status';
import { paths } from '../../ui/paths';

const refreshEveryMs = 1000;

/**
 * An upload creates folders and models and settles them one by one: the folder tree and the
 * model lists (and state counts) are refreshed as it goes, at most once a second, wherever
 * the reader is in the app.
 */
function useFreshListsWhileUploading(active: boolean, progress: number): void {
  const queryClient = useQueryClient();
  const last = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const started = useRef(false);
  useEffect(() => {
    if (active) started.current = true;
    if (!started.current) return;
    const refresh = () => {
      timer.current = undefined;
      last.current = Date.now();
      void queryClient.invalidateQueries({ queryKey: folderQueries.all() });
      void queryClient.invalidateQueries({ queryKey: modelQueries.lists() });
    };
    const wait = last.current + refreshEveryMs - Date.now();
    if (wait <= 0) refresh();
    else timer.current ??= setTimeout(refresh, wait);
  }, [active, progress, queryClient]);
  useEffect(() => () => clearTimeout(timer.current), []);
}

export function UploadIndicator() {
  const status = useSyncExternalStore(subscribeUploadStatus, getUploadStatus, getUploadStatus);

  useFreshListsWhileUploading(status.active, status.filesRecorded + status.filesDone);

  useEffect(() => {
    if (!hasSavedBatch()) return;
    void import('./upload-session').then((m) => m.uploadSession.restore()).catch(() => undefined);
  }, []);

  if (!status.active && !status.attention) return null;
  const percent = status.bytesTotal > 0 ? Math.round((status.bytesSent / status.bytesTotal) * 100) : 0;
  return (
    <Link
      to={paths.upload.href()}
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
