import { useId, useMemo, useState } from 'react';
import type { Folder } from '../contract/folders';

const shownAtMost = 200;

/**
 * Chooses a folder among many: a search over their paths, a list of the matches (radio buttons:
 * arrow keys move, the choice is announced), and "New folder" inside the one chosen (or at the top
 * level). Display only: the caller lists the folders and creates the new one.
 */
export function FolderPicker({
  folders,
  value,
  onChange,
  onCreate,
  exclude,
  label = 'Folder',
}: {
  folders: readonly Folder[];
  value: number | null;
  onChange: (folderId: number) => void;
  /** Creates `name` inside `parentFolderId` (null: top level) and resolves to it; it is chosen then. */
  onCreate?: (name: string, parentFolderId: number | null) => Promise<Folder>;
  /** Folders that cannot be chosen (the models' own). */
  exclude?: ReadonlySet<number>;
  label?: string;
}) {
  const searchId = useId();
  const listName = useId();
  const newId = useId();
  const [search, setSearch] = useState('');
  const [newName, setNewName] = useState('');
  const [creating, setCreating] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const matching = useMemo(() => {
    const words = search.toLocaleLowerCase().split(/\s+/).filter(Boolean);
    return [...folders]
      .filter((f) => !exclude?.has(f.id))
      .filter((f) => words.every((w) => f.path.toLocaleLowerCase().includes(w)))
      .sort((a, b) => a.path.localeCompare(b.path));
  }, [folders, exclude, search]);
  const chosen = folders.find((f) => f.id === value);

  const create = async () => {
    const name = newName.trim();
    if (!name || !onCreate) return;
    setCreating(true);
    setProblem(null);
    try {
      const folder = await onCreate(name, chosen?.id ?? null);
      setNewName('');
      setSearch('');
      onChange(folder.id);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setCreating(false);
    }
  };

  return (
    <fieldset className="folder-picker">
      <legend>{label}</legend>
      <label htmlFor={searchId} className="visually-hidden">
        Search folders
      </label>
      <input
        id={searchId}
        type="search"
        placeholder="Search folders…"
        value={search}
        onChange={(event) => setSearch(event.target.value)}
        autoComplete="off"
      />
      <div className="folder-picker__list" role="radiogroup" aria-label={`${label}: ${matching.length} matching`}>
        {matching.length === 0 && <p className="muted">No folder matches “{search}”.</p>}
        {matching.slice(0, shownAtMost).map((f) => (
          <label key={f.id} className={`folder-picker__option${f.id === value ? ' is-chosen' : ''}`}>
            <input type="radio" name={listName} value={f.id} checked={f.id === value} onChange={() => onChange(f.id)} />
            <span>{f.path}</span>
          </label>
        ))}
        {matching.length > shownAtMost && (
          <p className="muted">{matching.length - shownAtMost} more: type more of the path to narrow the list.</p>
        )}
      </div>
      {onCreate && (
        <div className="folder-picker__new">
          <label htmlFor={newId}>New folder {chosen ? `in ${chosen.path}` : 'at the top level'}</label>
          <input
            id={newId}
            value={newName}
            onChange={(event) => setNewName(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') {
                event.preventDefault();
                void create();
              }
            }}
          />
          <button type="button" className="button button--small" onClick={() => void create()} disabled={!newName.trim() || creating}>
            {creating ? 'Creating…' : 'Create and choose'}
          </button>
          {problem && (
            <p className="form-error" role="alert">
              {problem}
            </p>
          )}
        </div>
      )}
    </fieldset>
  );
}
