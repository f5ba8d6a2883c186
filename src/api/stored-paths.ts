// Which paths of a drop already hold a model, so that the upload review can flag them before
// anything is sent (the service would refuse them one by one with 409).
import { fileNameOf, folderOf, joinFilePath } from '../contract/file-paths';
import { filterBuilder, filterLimits, formatFilter } from '../contract/filter';
import { fetchAllFolders } from './folders';
import { fetchModels } from './models';

/** Filter text left for the names once the folder and state clauses are in. */
const namesBudget = filterLimits.maxLength - 200;

/** Groups names so that each group's `name(in(...))` clause stays within the filter's length limit. */
export function nameGroups(names: readonly string[], budget = namesBudget): string[][] {
  const groups: string[][] = [];
  let group: string[] = [];
  let length = 0;
  for (const name of names) {
    const cost = name.length * 2 + 3;
    if (group.length > 0 && (length + cost > budget || group.length >= filterLimits.maxInValues)) {
      groups.push(group);
      group = [];
      length = 0;
    }
    group.push(name);
    length += cost;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/**
 * The given file paths (lower case) at which a model is stored with its file. A model still
 * waiting for its file is left out: sending to its path takes that record over. Models are
 * found by name, which is the file name unless someone renamed the model.
 */
export async function findStoredPaths(filePaths: readonly string[], signal?: AbortSignal): Promise<Set<string>> {
  const stored = new Set<string>();
  if (filePaths.length === 0) return stored;
  const wanted = new Set(filePaths.map((p) => p.toLowerCase()));
  const byFolder = new Map<string, Set<string>>();
  for (const path of filePaths) {
    const folder = folderOf(path).toLowerCase();
    const names = byFolder.get(folder) ?? new Set<string>();
    names.add(fileNameOf(path));
    byFolder.set(folder, names);
  }
  const folders = await fetchAllFolders(signal);
  for (const folder of folders) {
    const names = byFolder.get(folder.path.toLowerCase());
    if (!names) continue;
    for (const group of nameGroups([...names])) {
      const filter = formatFilter([
        filterBuilder.eq('folderId', folder.id),
        filterBuilder.in('name', group),
        filterBuilder.ne('state', 'incomplete-upload'),
      ]);
      for (let page = 1; ; page++) {
        const data = await fetchModels({ filter, perPage: 100, page }, signal);
        for (const model of data.models) {
          const path = joinFilePath(folder.path, model.fileName).toLowerCase();
          if (wanted.has(path)) stored.add(path);
        }
        if (page >= data.pageData.lastPage || data.models.length === 0) break;
      }
    }
  }
  return stored;
}
