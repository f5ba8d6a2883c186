// The app also works against a deployment that sends only the published API's fields (the hosted
// service; our service with PUBLISHED_FIELDS_ONLY). What the app reads beyond them is filled in
// here, before the contract's schemas check an answer: a model's `filePath` from its folder's path
// and file name, `updatedAt` from `createdAt`, `metadata` as none; a folder's `path` from its
// parents' names; a match list's `matchCount` from its page data; the credential list from the
// one client id the published API answers. Answers that carry our fields pass through unchanged.
// Pure functions: the folder paths are handed in.

type Json = Record<string, unknown>;
export type FolderPaths = ReadonlyMap<number, string>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether any model in `models` lacks its path (then the caller looks folder paths up, once). */
export function lacksPaths(models: unknown[]): boolean {
  return models.some((m) => isObject(m) && typeof m.filePath !== 'string');
}

export function completeModel(model: unknown, folderPaths: FolderPaths | undefined): unknown {
  if (!isObject(model)) return model;
  const out: Json = { ...model };
  if (typeof out.filePath !== 'string' && typeof out.fileName === 'string') {
    const folder = typeof out.folderId === 'number' ? folderPaths?.get(out.folderId) : undefined;
    out.filePath = folder ? `${folder}/${out.fileName}` : out.fileName;
  }
  out.updatedAt ??= out.createdAt;
  out.metadata ??= [];
  return out;
}

/** Slash-joined paths of `folders` from their names and parents (folders whose parent is not listed start at it). */
export function folderPathsOf(folders: unknown[]): Map<number, string> {
  const byId = new Map<number, Json>();
  for (const f of folders) if (isObject(f) && typeof f.id === 'number') byId.set(f.id, f);
  const paths = new Map<number, string>();
  const pathOf = (id: number, depth: number): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const f = byId.get(id)!;
    if (typeof f.path === 'string') return f.path;
    const parent = typeof f.parentFolderId === 'number' ? f.parentFolderId : undefined;
    const p = parent !== undefined && byId.has(parent) && depth < 100 ? `${pathOf(parent, depth + 1)}/${String(f.name)}` : String(f.name);
    paths.set(id, p);
    return p;
  };
  for (const id of byId.keys()) pathOf(id, 0);
  return paths;
}

export function completeFolder(folder: unknown, folderPaths: FolderPaths | undefined): unknown {
  if (!isObject(folder) || typeof folder.path === 'string') return folder;
  const path = typeof folder.id === 'number' ? folderPaths?.get(folder.id) : undefined;
  return { ...folder, path: path ?? String(folder.name) };
}

/** A match list (any kind, image matches too): its models completed, its count from the page data. */
export function completeMatches(body: unknown, folderPaths: FolderPaths | undefined): unknown {
  if (!isObject(body) || !Array.isArray(body.matches)) return body;
  const pageData = isObject(body.pageData) ? body.pageData : undefined;
  return {
    ...body,
    matchCount: body.matchCount ?? (typeof pageData?.total === 'number' ? pageData.total : body.matches.length),
    matches: body.matches.map((m) => (isObject(m) ? { ...m, matchedModel: completeModel(m.matchedModel, folderPaths) } : m)),
  };
}

/** The models a match answer or a list carries, for {@link lacksPaths}. */
export function modelsOf(body: unknown): unknown[] {
  if (!isObject(body)) return [];
  if (Array.isArray(body.models)) return body.models;
  if (isObject(body.model)) return [body.model];
  if (Array.isArray(body.matches)) return body.matches.map((m) => (isObject(m) ? m.matchedModel : undefined));
  if (Array.isArray(body.groups)) return body.groups.flatMap((g) => (isObject(g) && Array.isArray(g.exampleModels) ? g.exampleModels : []));
  return [];
}

/** Every model of a list, one model, matches or a grouped match report, completed. */
export function completeModels(body: unknown, folderPaths: FolderPaths | undefined): unknown {
  if (!isObject(body)) return body;
  if (Array.isArray(body.models)) return { ...body, models: body.models.map((m) => completeModel(m, folderPaths)) };
  if (isObject(body.model)) return { ...body, model: completeModel(body.model, folderPaths) };
  if (Array.isArray(body.matches)) return completeMatches(body, folderPaths);
  if (Array.isArray(body.groups))
    return {
      ...body,
      groups: body.groups.map((g) =>
        isObject(g) && Array.isArray(g.exampleModels)
          ? { ...g, exampleModels: g.exampleModels.map((m) => completeModel(m, folderPaths)) }
          : g,
      ),
    };
  return body;
}

/** The published API knows one credential per user and lists only its id. */
export function completeCredentialList(body: unknown): unknown {
  if (!isObject(body) || Array.isArray(body.clientCredentials)) return body;
  const clientId = typeof body.clientId === 'string' ? body.clientId : undefined;
  return { ...body, clientCredentials: clientId ? [{ clientId, name: 'API credential', createdAt: null, lastUsedAt: null }] : [] };
}

/** The published API answers a new credential with its id and secret only: the name asked for, and now, fill the rest. */
export function completeCreatedCredential(body: unknown, name: string | undefined, now = new Date()): unknown {
  if (!isObject(body) || !isObject(body.clientCredentials)) return body;
  const c = body.clientCredentials;
  return { ...body, clientCredentials: { ...c, name: c.name ?? name ?? 'API credential', createdAt: c.createdAt ?? now.toISOString() } };
}

/** Created records answered without paths (published API): the paths asked for, in request order. */
export function withAskedPaths(body: unknown, asked: readonly { filePath: string }[]): unknown {
  if (!isObject(body) || !Array.isArray(body.models)) return body;
  return {
    ...body,
    models: body.models.map((entry, i) => {
      if (!isObject(entry) || !isObject(entry.model) || typeof entry.model.filePath === 'string') return entry;
      return { ...entry, model: completeModel({ ...entry.model, filePath: asked[i]?.filePath }, undefined) };
    }),
  };
}

/** Model ids of an assembly tree's nodes that carry no name (the published tree names nothing). */
export function unnamedTreeIds(body: unknown): string[] {
  const ids = new Set<string>();
  const walk = (nodes: unknown) => {
    if (!Array.isArray(nodes)) return;
    for (const n of nodes) {
      if (!isObject(n)) continue;
      if (typeof n.name !== 'string' && typeof n.modelId === 'string') ids.add(n.modelId);
      walk(n.children);
    }
  };
  if (isObject(body)) walk(body.children);
  return [...ids];
}

/**
 * An assembly tree with each node's name (its model's, where the deployment sends none) and the
 * published `occurrences`; a node without a transform keeps none (its placement is not known).
 */
export function completeAssemblyTree(body: unknown, names: ReadonlyMap<string, string>): unknown {
  const complete = (nodes: unknown): unknown =>
    Array.isArray(nodes)
      ? nodes.map((n) => {
          if (!isObject(n)) return n;
          const out: Json = { ...n, children: n.children === undefined ? undefined : complete(n.children) };
          if (out.children === undefined) delete out.children;
          if (typeof out.name !== 'string') out.name = (typeof n.modelId === 'string' && names.get(n.modelId)) || 'Unnamed part';
          return out;
        })
      : nodes;
  return isObject(body) ? { ...body, children: complete(body.children) } : body;
}
