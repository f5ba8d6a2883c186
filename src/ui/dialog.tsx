import { useId, useLayoutEffect, useRef, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';

export interface DialogProps {
  title: string;
  /** Called on Escape and by the dialog's own close controls; the parent unmounts the dialog. */
  onClose: () => void;
  children: ReactNode;
  /** Element to focus when the dialog opens (default: the first focusable one). */
  initialFocusRef?: RefObject<HTMLElement | null>;
  /** While true, Escape does not close (e.g. a request is in flight). */
  busy?: boolean;
  className?: string;
}

/**
 * A modal on the native <dialog>: showModal() gives the focus trap, the inert
 * background and Escape; focus goes back to where it was when the dialog closes.
 * It is portalled to <body> and the rest of the page is also marked aria-hidden + inert,
 * so tools that do not know native modality (some test runners, older screen readers)
 * see only the dialog too. Render it only while open.
 */
export function Dialog({ title, onClose, children, initialFocusRef, busy = false, className }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const hidden: Element[] = [];
    for (const element of Array.from(document.body.children)) {
      if (element === dialog || element.contains(dialog) || element.hasAttribute('aria-hidden') || element.tagName === 'SCRIPT') continue;
      element.setAttribute('aria-hidden', 'true');
      element.setAttribute('inert', '');
      hidden.push(element);
    }
    if (!dialog.open) {
      if (typeof dialog.showModal === 'function') dialog.showModal();
      else dialog.setAttribute('open', ''); // environments without <dialog> support (jsdom)
    }
    initialFocusRef?.current?.focus();
    return () => {
      for (const element of hidden) {
        element.removeAttribute('aria-hidden');
        element.removeAttribute('inert');
      }
      if (dialog.open && typeof dialog.close === 'function') dialog.close();
      if (previous?.isConnected) previous.focus();
    };
  }, [initialFocusRef]);

  return createPortal(
    <dialog
      ref={ref}
      className={`dialog${className ? ` ${className}` : ''}`}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onClose();
      }}
    >
      <h2 id={titleId} className="dialog__title">
        {title}
      </h2>
      {children}
    </dialog>,
    document.body,
  );
}
