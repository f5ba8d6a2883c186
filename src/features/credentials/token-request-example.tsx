import { CopyButton } from '../../ui/copy-button';
import { tokenRequestCurl } from './curl';

interface TokenRequestExampleProps {
  tokenUrl: string;
  clientId: string | null;
  /** Only right after creation; otherwise a placeholder is shown. */
  clientSecret?: string | null;
  testId?: string;
  label: string;
}

export function TokenRequestExample({ tokenUrl, clientId, clientSecret, testId, label }: TokenRequestExampleProps) {
  const command = tokenRequestCurl({ tokenUrl, clientId, clientSecret });
  return (
    <div className="code-block">
      <pre className="code" data-testid={testId} aria-label={label} tabIndex={0}>
        <code>{command}</code>
      </pre>
      <div className="code-block__actions">
        <CopyButton text={command} label="Copy command" className="button button--small" />
      </div>
    </div>
  );
}
