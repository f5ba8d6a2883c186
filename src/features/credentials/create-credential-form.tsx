import { useId, useState, type FormEvent } from 'react';
import { errorMessage } from '../../api/client';
import { useCreateClientCredential } from '../../api/client-credentials';
import { credentialNameSchema, type CreatedClientCredential } from '../../contract/client-credentials';

export type NewCredential = CreatedClientCredential['clientCredentials'];

export function CreateCredentialForm({ onCreated }: { onCreated: (credential: NewCredential) => void }) {
  const create = useCreateClientCredential();
  const [name, setName] = useState('');
  const [localError, setLocalError] = useState<string | null>(null);
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = credentialNameSchema.safeParse(name);
    if (!parsed.success) {
      setLocalError(name.trim() ? 'Use at most 100 characters.' : 'Enter a name, so you can recognise the credential later.');
      return;
    }
    setLocalError(null);
    create.mutate(
      { name: parsed.data },
      {
        onSuccess: (credential) => {
          onCreated(credential);
          setName('');
          // Drop the answer (it holds the secret) from the mutation as well.
          create.reset();
        },
      },
    );
  };

  const error = localError ?? (create.isError ? errorMessage(create.error) : null);

  return (
    <form className="create-form" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor={inputId}>Name</label>
        <input
          id={inputId}
          name="name"
          type="text"
          value={name}
          maxLength={100}
          autoComplete="off"
          placeholder="e.g. Nightly import script"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${hintId} ${errorId}` : hintId}
          onChange={(event) => {
            setName(event.target.value);
            setLocalError(null);
          }}
        />
        <p id={hintId} className="field__hint">
          Say where the credential is used; you can't rename it later.
        </p>
      </div>
      <button type="submit" className="button button--primary" disabled={create.isPending} aria-busy={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create credential'}
      </button>
      {error && (
        <p id={errorId} className="form-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
