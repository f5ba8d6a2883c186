import { useEffect, useRef, useState, type ChangeEvent } from 'react';
import { useDropzone } from 'react-dropzone';
import { acceptedImageTypes, imageAccept } from './image-checks';
import { IMAGE_MAX_BYTES, IMAGES_PER_SEARCH } from '../../contract/images';
import { formatBytes } from '../../ui/format-bytes';

/** Files pasted anywhere on the page (a screenshot, an image copied from a browser or a chat). */
function usePastedFiles(onFiles: (files: File[]) => void, disabled: boolean) {
  useEffect(() => {
    if (disabled) return;
    const onPaste = (event: ClipboardEvent) => {
      const files = Array.from(event.clipboardData?.files ?? []);
      // Text pasted into a field stays text.
      if (files.length === 0) return;
      event.preventDefault();
      onFiles(files);
    };
    document.addEventListener('paste', onPaste);
    return () => document.removeEventListener('paste', onPaste);
  }, [onFiles, disabled]);
}

/** The "Paste" button: the async clipboard API, for touch and pointer users who have no Ctrl+V. */
async function readClipboardImages(): Promise<File[]> {
  const items = await navigator.clipboard.read();
  const files: File[] = [];
  for (const [i, item] of items.entries()) {
    const type = item.types.find((t) => t.startsWith('image/'));
    if (!type) continue;
    const blob = await item.getType(type);
    files.push(new File([blob], `pasted-image-${i + 1}.${type === 'image/jpeg' ? 'jpg' : type.slice(6)}`, { type }));
  }
  return files;
}

/**
 * Drop zone with keyboard-operable buttons: choose images, take a photo (the camera on a phone), or
 * paste. Every file is passed on, images or not, so the page can say why one cannot be used.
 */
export function ImagePicker({
  onFiles,
  disabled = false,
  describedBy,
}: {
  onFiles: (files: File[]) => void;
  disabled?: boolean;
  describedBy?: string;
}) {
  const photoInput = useRef<HTMLInputElement>(null);
  const [pasteProblem, setPasteProblem] = useState<string | null>(null);
  const { getRootProps, getInputProps, isDragActive, open } = useDropzone({
    onDrop: (files) => onFiles(files),
    noClick: true,
    noKeyboard: true,
    multiple: true,
    disabled,
    useFsAccessApi: false,
  });
  usePastedFiles(onFiles, disabled);

  const onPhoto = (event: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(event.target.files ?? []);
    event.target.value = '';
    if (files.length > 0) onFiles(files);
  };

  const paste = async () => {
    setPasteProblem(null);
    try {
      const files = await readClipboardImages();
      if (files.length === 0) setPasteProblem('The clipboard holds no image. Copy an image first, or press Ctrl+V (⌘V) on this page.');
      else onFiles(files);
    } catch {
      setPasteProblem('The browser did not let this page read the clipboard. Press Ctrl+V (⌘V) on this page instead.');
    }
  };

  const canReadClipboard = typeof navigator !== 'undefined' && typeof navigator.clipboard?.read === 'function';

  return (
    <div
      {...getRootProps({
        className: `image-drop${isDragActive ? ' image-drop--active' : ''}${disabled ? ' image-drop--disabled' : ''}`,
        'aria-describedby': describedBy,
        'data-testid': 'image-drop',
      } as Record<string, string>)}
    >
      {/* The dropzone's own input: "Choose images" opens it. */}
      <input
        {...getInputProps({ accept: imageAccept, 'aria-label': 'Choose images' } as Record<string, string>)}
        data-testid="image-input"
      />
      <input
        ref={photoInput}
        type="file"
        accept={acceptedImageTypes.join(',')}
        capture="environment"
        hidden
        tabIndex={-1}
        aria-label="Take a photo"
        onChange={onPhoto}
        disabled={disabled}
      />
      <span className="image-drop__icon" aria-hidden="true" />
      <p className="image-drop__title">
        {isDragActive ? (
          'Drop to add these images'
        ) : (
          <>
            <span className="image-drop__title--pointer">Drag photos of the part here</span>
            <span className="image-drop__title--touch">Add photos of the part</span>
          </>
        )}
      </p>
      <p className="muted image-drop__hint">
        PNG, JPEG or WebP, up to {formatBytes(IMAGE_MAX_BYTES)} each. 1 to {IMAGES_PER_SEARCH} images of the same object — or paste one with
        Ctrl+V (⌘V).
      </p>
      <div className="actions image-drop__actions">
        <button type="button" className="button button--primary" onClick={open} disabled={disabled}>
          Choose images…
        </button>
        <button type="button" className="button image-drop__photo" onClick={() => photoInput.current?.click()} disabled={disabled}>
          Take a photo
        </button>
        {canReadClipboard && (
          <button type="button" className="button" onClick={() => void paste()} disabled={disabled}>
            Paste
          </button>
        )}
      </div>
      {pasteProblem && (
        <p className="form-error image-drop__problem" role="alert">
          {pasteProblem}
        </p>
      )}
    </div>
  );
}
