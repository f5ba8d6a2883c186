export type StateTone = 'ready' | 'partial' | 'working' | 'failed' | 'neutral';

interface StateInfo {
  label: string;
  tone: StateTone;
  /** What is going on, in words, while the model is not settled. */
  progress?: string;
}

const states: Record<string, StateInfo> = {
  finished: { label: 'Ready', tone: 'ready' },
  'finished-incomplete': { label: 'Ready, parts missing', tone: 'partial' },
  processing: {
    label: 'Processing',
    tone: 'working',
    progress: 'Processing the file: reading its geometry, building the 3D preview and the shape fingerprint used for search.',
  },
  'incomplete-upload': {
    label: 'Waiting for upload',
    tone: 'working',
    progress: 'Waiting for the file to arrive. If the upload was interrupted, upload the file again.',
  },
  failed: { label: 'Failed', tone: 'failed' },
  'failed-incomplete': { label: 'Failed, parts missing', tone: 'failed' },
  unsupported: { label: 'Unsupported', tone: 'neutral' },
};

/** Words and colour of a state; a state this app does not know counts as still working. */
export function stateInfo(state: string): StateInfo {
  return (
    states[state] ?? {
      label: `Working (${state})`,
      tone: 'working',
      progress: 'The service is still working on this model. This page updates by itself.',
    }
  );
}

/** A model state in words ("Ready" for finished): the one table of them in the app. */
export function stateLabel(state: string): string {
  return stateInfo(state).label;
}

export const stateFilterLabels: Record<string, string> = Object.fromEntries(Object.entries(states).map(([k, v]) => [k, v.label]));

export function StateBadge({ state }: { state: string }) {
  const info = stateInfo(state);
  return (
    <span className={`badge badge--${info.tone}`} title={info.tone === 'working' ? 'Still being processed' : undefined}>
      {info.tone === 'working' && <span className="badge__pulse" aria-hidden="true" />}
      {info.label}
    </span>
  );
}

export function fileTypeLabel(fileType: string): string {
  return fileType ? fileType.replace(/^\./, '').toUpperCase() : '—';
}
