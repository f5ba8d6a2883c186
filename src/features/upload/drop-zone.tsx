import { useRef, type ChangeEvent } from 'react';
import { useDropzone } from 'react-dropzone';
import type { SourceFile } from './engine/planner';
import { toSourceFile } from './source-files';
import { READABLE_FORMATS, type FileKind } from '../../contract/file-types';

/** "STEP, IGES, BREP": the readable formats of one kind, by name, before anything is dropped. */
function formatList(formats: typeof READABLE_FORMATS, kind: FileKind): string {
  return Object.entries(formats)
    .filter(([, f]) => f.kind === kind)
    .map(([id]) => (id === 'gltf' ? 'glTF' : id.toUpperCase()))
    .join(', ');
}

// React does not know these attributes; they pass through to the DOM as written.
const folderInputAttributes = { webkitdirectory: '', directory: '' } as Record<string, string>;

/**
 * Drop target for files and whole folders (nesting kept), with keyboard-operable buttons that
 * open a folder picker (<input webkitdirectory>) or a file picker.
 */
export function DropZone({
  onFiles,
  disabled = false,
  hint,
}: {
  onFiles: (files: SourceFile[]) => void;
  disabled?: boolean;
  hint?: string;
}) {
  const fileInput = useRef<HTMLInputElement>(null);
  const { getRootProps, getInputProps, isDragActive, open } = useDropzone({
    onDrop: (accepted) => onFiles(accepted.map(toSourceFile)),
    noClick: true,
    noKeyboard: true,
    multiple: true,
    disabled,
    useFsAccessApi: false,
  });

  const onPicked = (event: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(event.target.files ?? []);
    event.target.value = '';
    if (files.length > 0) onFiles(files.map(toSourceFile));
  };

  return (
    <div {...getRootProps({ className: `dropzone${isDragActive ? ' dropzone--active' : ''}${disabled ? ' dropzone--disabled' : ''}` })}>
      <input
        {...getInputProps({ 'aria-label': 'Choose a folder to upload' } as Record<string, string>)}
        {...folderInputAttributes}
        data-testid="upload-input"
      />
      <input
        ref={fileInput}
        type="file"
        multiple
        hidden
        tabIndex={-1}
        aria-label="Choose files to upload"
        data-testid="upload-file-input"
        onChange={onPicked}
        disabled={disabled}
      />
      <p className="dropzone__title">{isDragActive ? 'Drop to add these files' : 'Drag files or folders here'}</p>
      <p className="muted dropzone__hint">{hint ?? 'Folders keep their nesting. Several folders at once are fine.'}</p>
      <p className="muted dropzone__formats">
        Read: {formatList(READABLE_FORMATS, 'cad')} (exact CAD) and {formatList(READABLE_FORMATS, 'mesh')} (meshes). Native CAD files
        (SolidWorks, Creo, CATIA, Inventor…) are kept but not read: export them as STEP.
      </p>
      <div className="actions dropzone__actions">
        <button type="button" className="button" onClick={open} disabled={disabled}>
          Choose folder…
        </button>
        <button type="button" className="button" onClick={() => fileInput.current?.click()} disabled={disabled}>
          Choose files…
        </button>
      </div>
    </div>
  );
}
