import { useEffect, useRef, useState, type Ref } from 'react';
import { copyText } from './clipboard';

interface CopyButtonProps {
  text: string;
  /** Button label, e.g. "Copy secret". It stays the same; the result is announced beside it. */
  label: string;
  className?: string;
  ref?: Ref<HTMLButtonElement>;
}

export function CopyButton({ text, label, className = 'button', ref }: CopyButtonProps) {
  const [status, setStatus] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const copy = async () => {
    const ok = await copyText(text);
    setStatus(ok ? 'copied' : 'failed');
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setStatus('idle'), ok ? 2500 : 6000);
  };

  return (
    <span className="copy">
      <button type="button" ref={ref} className={className} onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" className={`copy__status copy__status--${status}`}>
        {status === 'copied' ? 'Copied' : status === 'failed' ? 'Could not copy — select the text and copy it by hand.' : ''}
      </span>
    </span>
  );
}
