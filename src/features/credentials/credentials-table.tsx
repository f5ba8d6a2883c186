import { RelativeTime } from '../../app/ui/relative-time';
import type { ClientCredential } from '../../contract/client-credentials';

export function CredentialsTable({ credentials, onDelete }: { credentials: ClientCredential[]; onDelete: (credential: ClientCredential) => void }) {
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">Your API credentials</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Client ID</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {credentials.map((credential) => (
            <tr key={credential.clientId} data-testid="credential-row">
              <td data-label="Name" className="table__name">
                {credential.name}
              </td>
              <td data-label="Client ID">
                <code className="client-id">{credential.clientId}</code>
              </td>
              <td data-label="Created">
                <RelativeTime value={credential.createdAt} />
              </td>
              <td data-label="Last used">
                <RelativeTime value={credential.lastUsedAt} fallback="Never" />
              </td>
              <td className="table__actions">
                <button
                  type="button"
                  className="button button--small button--danger-quiet"
                  aria-label={`Delete ${credential.name}`}
                  onClick={() => onDelete(credential)}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
