import { useMemo } from 'react';
import type { EngineFileView } from './engine/engine';
import { inPathOrder, pathInFolder, roleWords } from './status-words';
import { formatBytes } from '../../ui/format-bytes';
import { DataTable, RowActionCell } from '../../ui/table';

/** Every dropped file before anything is sent: path, size, detected role, problems and notes. */
export function ReviewTable({
  files,
  folder,
  onRemove,
  busy,
}: {
  files: readonly EngineFileView[];
  /** The target folder, named above the table; paths are shown inside it. */
  folder: string;
  onRemove: (index: number) => void;
  busy: boolean;
}) {
  const ordered = useMemo(() => inPathOrder(files), [files]);
  return (
    <DataTable
      caption="Files to upload"
      columns={['File path', 'Size', 'Role', 'Problems and notes', null]}
      className="upload-table"
      wrapClassName="upload-table-wrap"
    >
      {ordered.map(([file, index]) => (
        <tr
          key={`${index}:${file.filePath}`}
          data-testid="upload-review-row"
          className={file.problems.length > 0 ? 'upload-row--problem' : undefined}
        >
          <td data-label="File path" className="upload-table__path" title={file.filePath}>
            {pathInFolder(file.filePath, folder)}
          </td>
          <td data-label="Size" className="upload-table__size">
            {formatBytes(file.size)}
          </td>
          <td data-label="Role">{file.role ? roleWords[file.role] : <span className="muted">Unknown</span>}</td>
          <td data-label="Problems and notes">
            {file.problems.length === 0 && file.notes.length === 0 && <span className="muted">Ready</span>}
            {file.problems.length > 0 && (
              <ul className="upload-messages upload-messages--problem">
                {file.problems.map((p) => (
                  <li key={p}>
                    <span className="visually-hidden">Problem: </span>
                    {p}
                  </li>
                ))}
              </ul>
            )}
            {file.notes.length > 0 && (
              <ul className="upload-messages">
                {file.notes.map((n) => (
                  <li key={n}>{n}</li>
                ))}
              </ul>
            )}
          </td>
          <RowActionCell label={`Remove ${file.filePath}`} onClick={() => onRemove(index)} disabled={busy}>
            Remove
          </RowActionCell>
        </tr>
      ))}
    </DataTable>
  );
}
