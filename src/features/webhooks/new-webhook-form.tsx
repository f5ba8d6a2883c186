import { useId, useState, type FormEvent } from 'react';
import { errorMessage } from '../../api/client';
import { useCreateWebhook } from '../../api/webhooks';
import { createWebhookRequestSchema, webhookEvents, webhookEventWords, type Webhook, type WebhookEvent } from '../../contract/webhooks';

export interface NewWebhook {
  webhook: Webhook;
  secret: string;
}

/** Address, what to be told of, a note; the service checks the address can be reached from it. */
export function NewWebhookForm({ onCreated }: { onCreated: (created: NewWebhook) => void }) {
  const create = useCreateWebhook();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<ReadonlySet<WebhookEvent>>(new Set(webhookEvents));
  const [problem, setProblem] = useState<string | null>(null);
  const urlId = useId();
  const descriptionId = useId();
  const problemId = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = { url: url.trim(), events: webhookEvents.filter((e) => events.has(e)), ...(description.trim() ? { description } : {}) };
    // The contract's own rules first, so an obvious slip is said before a round trip.
    const checked = createWebhookRequestSchema.safeParse(body);
    if (!checked.success) {
      setProblem(checked.error.issues.map((i) => `${i.path.join('.') || 'address'}: ${i.message}`).join('; '));
      return;
    }
    setProblem(null);
    create.mutate(checked.data, {
      onSuccess: (answer) => {
        setUrl('');
        setDescription('');
        onCreated(answer);
      },
    });
  };
  const shown = problem ?? (create.isError ? errorMessage(create.error) : null);

  return (
    <form className="webhook-form" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor={urlId}>Address</label>
        <input
          id={urlId}
          type="url"
          inputMode="url"
          placeholder="https://plm.example.com/hooks/workbench"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          aria-invalid={shown ? true : undefined}
          aria-describedby={shown ? problemId : undefined}
          required
        />
      </div>
      <div className="field">
        <label htmlFor={descriptionId}>Note (optional)</label>
        <input id={descriptionId} value={description} maxLength={200} onChange={(event) => setDescription(event.target.value)} />
      </div>
      <fieldset className="webhook-form__events">
        <legend>Tell it when</legend>
        {webhookEvents.map((e) => (
          <label key={e} className="check">
            <input
              type="checkbox"
              checked={events.has(e)}
              onChange={(event) => {
                const next = new Set(events);
                if (event.target.checked) next.add(e);
                else next.delete(e);
                setEvents(next);
              }}
            />
            {webhookEventWords[e]} <code className="muted">{e}</code>
          </label>
        ))}
      </fieldset>
      {shown && (
        <p className="form-error" role="alert" id={problemId}>
          {shown}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="button button--primary" disabled={create.isPending} aria-busy={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add endpoint'}
        </button>
      </div>
    </form>
  );
}
