import { useState } from 'react';
import { useNavigate } from 'react-router';
import { COMPARE_SET_MAX, setCompareSet } from '../../ui/compare-set';
import { useDeleteModels, useMoveModel } from '../../api/models';
import { ConfirmDeleteDialog } from '../../ui/confirm-delete-dialog';
import type { Model } from '../../contract/models';
import { paths } from '../../ui/paths';
import { errorMessage } from '../../api/client';
import { MoveModelDialog, type MoveResult } from './move-model-dialog';

/** After a move: what went where, Undo while it is shown, and the refusals by name. */
export function MovedNotice({ result, onDone }: { result: MoveResult; onDone: () => void }) {
  const moveBack = useMoveModel();
  const [undoing, setUndoing] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const undo = async () => {
    setUndoing(true);
    const refused: string[] = [];
    for (const m of result.moved)
      await moveBack
        .mutateAsync({ id: m.id, folderId: m.fromFolderId })
        .catch((e: unknown) => refused.push(`${m.name}: ${errorMessage(e)}`));
    setUndoing(false);
    if (refused.length) setProblem(`Not moved back: ${refused.join('; ')}`);
    else onDone();
  };
  return (
    <div className="selection-bar" role="status" aria-label="Moved models">
      <p className="selection-bar__count">
        Moved {result.moved.length} {result.moved.length === 1 ? 'model' : 'models'} to {result.to.path}
        {result.failed.length > 0 &&
          `; ${result.failed.length} not moved (${result.failed.map((f) => `${f.name}: ${f.reason}`).join('; ')})`}
        .
      </p>
      {result.moved.length > 0 && (
        <button type="button" className="button button--small" onClick={() => void undo()} disabled={undoing}>
          {undoing ? 'Moving back…' : 'Undo'}
        </button>
      )}
      <button type="button" className="button button--small" onClick={onDone} disabled={undoing}>
        Dismiss
      </button>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}

/** "3 selected · Select all on this page · Clear · Move… · Delete selected", with the confirmation. */
export function SelectionBar({
  models,
  selected,
  onSelect,
  onMoved,
}: {
  models: readonly Model[];
  selected: ReadonlySet<string>;
  onSelect: (ids: ReadonlySet<string>) => void;
  /** After "Move selected…": the page shows what moved (MovedNotice), even once the folder is empty. */
  onMoved: (result: MoveResult) => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const navigate = useNavigate();
  const [deleted, setDeleted] = useState(0);
  const remove = useDeleteModels();
  const [moving, setMoving] = useState(false);
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
      <button type="button" className="button button--small" onClick={() => setMoving(true)}>
        Move selected…
      </button>
      <button type="button" className="button button--small button--danger-quiet" onClick={() => setConfirming(true)}>
        Delete selected
      </button>
      {moving && (
        <MoveModelDialog
          models={models.filter((m) => selected.has(m.id))}
          onClose={() => setMoving(false)}
          onMoved={(result) => {
            onMoved(result);
            onSelect(new Set());
          }}
        />
      )}
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
