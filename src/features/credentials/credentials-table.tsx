import { RelativeTime } from '../../ui/relative-time';
import type { ClientCredential } from '../../contract/client-credentials';
import { DataTable, RowActionCell } from '../../ui/table';

export function CredentialsTable({
  credentials,
  onDelete,
}: {
  credentials: ClientCredential[];
  onDelete: (credential: ClientCredential) => void;
}) {
  return (
    <DataTable caption="Your API credentials" columns={['Name', 'Client ID', 'Created', 'Last used', null]}>
      {credentials.map((credential) => (
        <tr key={credential.clientId} data-testid="credential-row">
          <td data-label="Name" className="table__name">
            {credential.name}
          </td>
          <td data-label="Client ID">
            <code className="client-id">{credential.clientId}</code>
          </td>
          <td data-label="Created">
            <RelativeTime value={credential.createdAt} fallback="—" />
          </td>
          <td data-label="Last used">
            <RelativeTime value={credential.lastUsedAt} fallback="Never" />
          </td>
          <RowActionCell label={`Delete ${credential.name}`} onClick={() => onDelete(credential)}>
            Delete
          </RowActionCell>
        </tr>
      ))}
    </DataTable>
  );
}
