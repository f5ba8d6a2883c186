import { useState } from 'react';
import { useNavigate } from 'react-router';
import { COMPARE_SET_MAX, setCompareSet } from '../../ui/compare-set';
import { useDeleteModels } from '../../api/models';
import { ConfirmDeleteDialog } from '../../ui/confirm-delete-dialog';
import type { Model } from '../../contract/models';
import { paths } from '../../ui/paths';

/** "3 selected · Select all on this page · Clear · Delete selected", with the confirmation. */
export function SelectionBar({
  models,
  selected,
  onSelect,
}: {
  models: readonly Model[];
  selected: ReadonlySet<string>;
  onSelect: (ids: ReadonlySet<string>) => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const navigate = useNavigate();
  const [deleted, setDeleted] = useState(0);
  const remove = useDeleteModels();
  if (selected.size === 0) return null;
  const names = models.filter((m) => selected.has(m.id)).map((m) => m.name);
  const everyOnPage = models.every((m) => selected.has(m.id));
  const close = () => {
    setConfirming(false);
    remove.reset();
  };
  return (
    <div className="selection-bar" role="region" aria-label="Selected models">
      <p className="selection-bar__count" aria-live="polite">
        {selected.size} selected
      </p>
      {!everyOnPage && (
        <button type="button" className="button button--small" onClick={() => onSelect(new Set([...selected, ...models.map((m) => m.id)]))}>
          Select all on this page
        </button>
      )}
      <button type="button" className="button button--small" onClick={() => onSelect(new Set())}>
        Clear selection
      </button>
      {selected.size >= 2 && selected.size <= COMPARE_SET_MAX && (
        <button
          type="button"
          className="button button--small"
          onClick={() => {
            const picked = models.filter((m) => selected.has(m.id));
            setCompareSet(picked);
            void navigate(paths.compareSet.href(picked.map((m) => m.id)));
          }}
        >
          Compare selected
        </button>
      )}
      <button type="button" className="button button--small button--danger-quiet" onClick={() => setConfirming(true)}>
        Delete selected
      </button>
      {confirming && (
        <ConfirmDeleteDialog
          title={`Delete ${selected.size} ${selected.size === 1 ? 'model' : 'models'}?`}
          onClose={close}
          pending={remove.isPending}
          error={remove.error}
          onConfirm={() => {
            setDeleted(0);
            remove.mutate(
              { ids: [...selected], onProgress: setDeleted },
              {
                onSuccess: () => {
                  onSelect(new Set());
                  close();
                },
              },
            );
          }}
        >
          <p>These models are deleted with their files, 3D previews and matches. Assemblies that use them are processed again.</p>
          <ul className="selection-bar__names">
            {names.slice(0, 10).map((name, i) => (
              <li key={i}>{name}</li>
            ))}
            {names.length > 10 && <li className="muted">and {names.length - 10} more</li>}
          </ul>
          {remove.isPending && selected.size > 100 && (
            <p role="status">
              {deleted} of {selected.size} deleted…
            </p>
          )}
        </ConfirmDeleteDialog>
      )}
    </div>
  );
}
