import { useId, useState, type FormEvent } from 'react';
import { errorMessage } from '../../api/client';
import { useCreateMetadataKey, useMetadataKeys } from '../../api/metadata-keys';
import { useDeleteModelMetadata, useSetModelMetadata } from '../../api/models';
import type { MetadataKey } from '../../contract/metadata-keys';
import type { MetadataPair, Model } from '../../contract/models';
import { DataTable } from '../../ui/table';

const maxValueLength = 1000;
const newKeyOption = '__new__';

function keyName(keys: readonly MetadataKey[] | undefined, id: number): string {
  return keys?.find((k) => k.id === id)?.name ?? `Key #${id}`;
}

function EditRow({ modelId, pair, name, onDone }: { modelId: string; pair: MetadataPair; name: string; onDone: () => void }) {
  const set = useSetModelMetadata();
  const [value, setValue] = useState(pair.value);
  const inputId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (value === pair.value) return onDone();
    set.mutate({ modelId, metadataKeyId: pair.metadataKeyId, value }, { onSuccess: onDone });
  };
  return (
    <tr>
      <th scope="row">{name}</th>
      <td colSpan={2}>
        <form className="inline-form" onSubmit={submit}>
          <label htmlFor={inputId} className="visually-hidden">
            Value of {name}
          </label>
          <input id={inputId} value={value} maxLength={maxValueLength} onChange={(e) => setValue(e.target.value)} autoFocus />
          <button type="submit" className="button button--small button--primary" disabled={set.isPending}>
            {set.isPending ? 'Saving…' : 'Save'}
          </button>
          <button type="button" className="button button--small" onClick={onDone} disabled={set.isPending}>
            Cancel
          </button>
        </form>
        {set.isError && (
          <p className="form-error" role="alert">
            {errorMessage(set.error)}
          </p>
        )}
      </td>
    </tr>
  );
}

function ReadRow({
  modelId,
  pair,
  name,
  editable,
  onEdit,
}: {
  modelId: string;
  pair: MetadataPair;
  name: string;
  editable: boolean;
  onEdit: () => void;
}) {
  const remove = useDeleteModelMetadata();
  return (
    <tr data-testid="metadata-row">
      <th scope="row">{name}</th>
      <td className="metadata__value">{pair.value}</td>
      {editable && (
        <td className="table__actions">
          <button type="button" className="button button--small" onClick={onEdit} aria-label={`Edit ${name}`}>
            Edit
          </button>{' '}
          <button
            type="button"
            className="button button--small button--danger-quiet"
            aria-label={`Remove ${name}`}
            disabled={remove.isPending}
            onClick={() => remove.mutate({ modelId, metadataKeyId: pair.metadataKeyId })}
          >
            {remove.isPending ? 'Removing…' : 'Remove'}
          </button>
          {remove.isError && (
            <p className="form-error" role="alert">
              {errorMessage(remove.error)}
            </p>
          )}
        </td>
      )}
    </tr>
  );
}

function AddMetadataForm({ model, keys }: { model: Model; keys: readonly MetadataKey[] }) {
  const set = useSetModelMetadata();
  const createKey = useCreateMetadataKey();
  const free = keys.filter((k) => !model.metadata.some((m) => m.metadataKeyId === k.id));
  const [keyChoice, setKeyChoice] = useState('');
  const [newKeyName, setNewKeyName] = useState('');
  const [value, setValue] = useState('');
  const [localError, setLocalError] = useState<string | null>(null);
  const ids = { key: useId(), newKey: useId(), value: useId() };
  const choice = keyChoice || (free[0] ? String(free[0].id) : newKeyOption);
  const pending = set.isPending || createKey.isPending;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setLocalError(null);
    if (choice === newKeyOption && !newKeyName.trim()) return setLocalError('Enter a name for the new key.');
    if (choice === newKeyOption && newKeyName.trim().length > 100) return setLocalError('Key names have at most 100 characters.');
    try {
      const keyId = choice === newKeyOption ? (await createKey.mutateAsync(newKeyName.trim())).id : Number(choice);
      await set.mutateAsync({ modelId: model.id, metadataKeyId: keyId, value });
      setValue('');
      setNewKeyName('');
      setKeyChoice('');
    } catch {
      // Shown below from the mutations' state.
    }
  };

  const error = localError ?? (createKey.isError ? errorMessage(createKey.error) : set.isError ? errorMessage(set.error) : null);

  return (
    <form className="metadata__add" onSubmit={(e) => void submit(e)} noValidate aria-label="Add metadata">
      <div className="field">
        <label htmlFor={ids.key}>Key</label>
        <select id={ids.key} value={choice} onChange={(e) => setKeyChoice(e.target.value)}>
          {free.map((k) => (
            <option key={k.id} value={k.id}>
              {k.name}
            </option>
          ))}
          <option value={newKeyOption}>New key…</option>
        </select>
      </div>
      {choice === newKeyOption && (
        <div className="field">
          <label htmlFor={ids.newKey}>New key name</label>
          <input id={ids.newKey} value={newKeyName} maxLength={100} onChange={(e) => setNewKeyName(e.target.value)} autoComplete="off" />
        </div>
      )}
      <div className="field">
        <label htmlFor={ids.value}>Value</label>
        <input id={ids.value} value={value} maxLength={maxValueLength} onChange={(e) => setValue(e.target.value)} autoComplete="off" />
      </div>
      <button type="submit" className="button button--primary" disabled={pending} aria-busy={pending}>
        {pending ? 'Adding…' : 'Add'}
      </button>
      {error && (
        <p className="form-error metadata__error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/** A model's metadata: read-only for viewers; editors add, change and remove values. */
export function MetadataSection({ model, editable }: { model: Model; editable: boolean }) {
  const keys = useMetadataKeys();
  const [editing, setEditing] = useState<number | null>(null);

  return (
    <section className="card" aria-labelledby="metadata-heading">
      <h2 id="metadata-heading" className="card__title">
        Metadata
      </h2>
      {model.metadata.length === 0 ? (
        <p className="muted">{editable ? 'No metadata yet. Add a key and value below.' : 'No metadata.'}</p>
      ) : (
        <DataTable
          caption={`Metadata of ${model.name}`}
          columns={editable ? ['Key', 'Value', null] : ['Key', 'Value']}
          className="metadata"
        >
          {model.metadata.map((pair) => {
            const name = keyName(keys.data, pair.metadataKeyId);
            return editable && editing === pair.metadataKeyId ? (
              <EditRow key={pair.metadataKeyId} modelId={model.id} pair={pair} name={name} onDone={() => setEditing(null)} />
            ) : (
              <ReadRow
                key={pair.metadataKeyId}
                modelId={model.id}
                pair={pair}
                name={name}
                editable={editable}
                onEdit={() => setEditing(pair.metadataKeyId)}
              />
            );
          })}
        </DataTable>
      )}
      {keys.isError && <p className="form-error">Metadata key names could not be loaded: {errorMessage(keys.error)}</p>}
      {editable && keys.data && <AddMetadataForm model={model} keys={keys.data} />}
    </section>
  );
}
