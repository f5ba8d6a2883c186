import { isSettled } from '../../contract/models';

const labels: Record<string, string> = {
  finished: 'Ready',
  'finished-incomplete': 'Ready, parts missing',
  processing: 'Processing',
  'incomplete-upload': 'Waiting for upload',
  failed: 'Failed',
  'failed-incomplete': 'Failed, parts missing',
  unsupported: 'Unsupported',
};

/** A model state in words; a state this app does not know counts as still working. */
export function stateLabel(state: string): string {
  return labels[state] ?? (isSettled(state) ? state : `Working (${state})`);
}
