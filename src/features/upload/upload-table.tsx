import { memo, useMemo, useRef } from 'react';
import { extensionOf } from '../../contract/file-types';
import { Link } from 'react-router';
import type { EngineFileView } from './engine/engine';
import { inPathOrder, pathInFolder, roleWords, statusWords, toneOf } from './status-words';
import { formatBytes } from '../../ui/format-bytes';
import { DataTable } from '../../ui/table';
import { paths } from '../../ui/paths';
import type { AddedDuplicate } from '../../api/added-duplicates';
import { DuplicateNote, type DuplicateActions, type DuplicateDecision } from './duplicate-note';

const CANCELLABLE = new Set(['waiting', 'uploading', 'retrying', 'needs-file']);
const REPROCESSABLE = new Set(['failed', 'failed-incomplete']);

export interface RowActions {
  onCancel: (filePath: string) => void;
  onReprocess: (modelId: string) => void;
  /** A new file for a model that could not be read, sent to the same record. */
  onReplace: (modelId: string, filePath: string, file: File) => void;
  reprocessing: ReadonlySet<string>;
  /** Finished files whose part the library already held, by model id (the duplicate rule). */
  duplicates: ReadonlyMap<string, AddedDuplicate>;
  decisions: ReadonlyMap<string, DuplicateDecision>;
  duplicateActions: DuplicateActions;
}

const UploadRow = memo(function UploadRow({
  file,
  folder,
  actions,
  reprocessing,
  duplicate,
  decision,
}: {
  file: EngineFileView;
  folder: string;
  actions: RowActions;
  reprocessing: boolean;
  duplicate: AddedDuplicate | undefined;
  decision: DuplicateDecision | undefined;
}) {
  const shown = pathInFolder(file.filePath, folder);
  const percent = file.size > 0 ? Math.min(100, Math.round((file.loaded / file.size) * 100)) : 0;
  const finished = file.modelId && (file.status === 'finished' || file.status === 'finished-incomplete');
  const message = file.error?.message ?? (file.status !== 'finished' ? file.stateReason : null);
  const chooser = useRef<HTMLInputElement>(null);
  const extension = extensionOf(file.filePath);
  return (
    <tr data-testid="upload-row" data-status={file.status}>
      <td data-label="File" className="upload-table__path" title={file.filePath}>
        {finished && decision !== 'deleted' ? <Link to={paths.model.href(file.modelId!)}>{shown}</Link> : shown}
      </td>
      <td data-label="Role">{file.role ? roleWords[file.role] : '—'}</td>
      <td data-label="State">
        <span className={`upload-state upload-state--${toneOf(file.status)}`}>{statusWords[file.status]}</span>
        {(file.status === 'uploading' || file.status === 'retrying') && (
          <span
            className="upload-bar"
            role="progressbar"
            aria-label={`${file.name} upload`}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent}
            aria-valuetext={`${formatBytes(file.loaded)} of ${formatBytes(file.size)}`}
          >
            <span style={{ width: `${percent}%` }} />
          </span>
        )}
        {message && <p className="upload-messages upload-messages--problem">{message}</p>}
        {file.missingParts.length > 0 && <p className="upload-messages">Missing parts: {file.missingParts.join(', ')}</p>}
        {file.status === 'needs-file' && <p className="upload-messages">Drop or choose the same folder again to send it.</p>}
        {duplicate && <DuplicateNote found={duplicate} decision={decision} actions={actions.duplicateActions} />}
      </td>
      <td className="table__actions">
        {CANCELLABLE.has(file.status) && (
          <button
            type="button"
            className="button button--small button--danger-quiet"
            aria-label={`Cancel ${file.filePath}`}
            onClick={() => actions.onCancel(file.filePath)}
          >
            Cancel
          </button>
        )}
        {REPROCESSABLE.has(file.status) && file.modelId && (
          <button
            type="button"
            className="button button--small"
            aria-label={`Reprocess ${file.filePath}`}
            disabled={reprocessing}
            onClick={() => actions.onReprocess(file.modelId!)}
          >
            {reprocessing ? 'Reprocessing…' : 'Reprocess'}
          </button>
        )}
        {REPROCESSABLE.has(file.status) && file.modelId && (
          <>
            <button
              type="button"
              className="button button--small"
              aria-label={`Replace the file of ${file.filePath}`}
              title="Send another copy of this file (a whole one) to the same record"
              disabled={reprocessing}
              onClick={() => chooser.current?.click()}
            >
              Replace file…
            </button>
            <input
              ref={chooser}
              type="file"
              hidden
              accept={extension ? `.${extension}` : undefined}
              onChange={(event) => {
                const chosen = event.target.files?.[0];
                event.target.value = '';
                if (chosen) actions.onReplace(file.modelId!, file.filePath, chosen);
              }}
            />
          </>
        )}
      </td>
    </tr>
  );
});

/** The batch as it is sent and processed, one row per file. */
export function UploadTable({ files, folder, actions }: { files: readonly EngineFileView[]; folder: string; actions: RowActions }) {
  const ordered = useMemo(() => inPathOrder(files), [files]);
  return (
    <DataTable
      caption="Files being uploaded"
      columns={['File', 'Role', 'State', null]}
      className="upload-table"
      wrapClassName="upload-table-wrap"
    >
      {ordered.map(([file, index]) => (
        <UploadRow
          key={index}
          file={file}
          folder={folder}
          actions={actions}
          reprocessing={!!file.modelId && actions.reprocessing.has(file.modelId)}
          duplicate={file.modelId ? actions.duplicates.get(file.modelId) : undefined}
          decision={file.modelId ? actions.decisions.get(file.modelId) : undefined}
        />
      ))}
    </DataTable>
  );
}
