// The compare view's state <-> its query string, so a link shows exactly the same comparison.
import { isMatchKind, type MatchKind } from '../../contract/matches';

export type CompareMode = 'side' | 'overlay';
export type SectionAxis = 'x' | 'y' | 'z';

export interface CompareState {
  mode: CompareMode;
  /** The match's placement of the query (column-major 4x4), from the result that was opened. */
  transform: number[] | null;
  kind: MatchKind | null;
  /** Tolerance in model units; null = the page's default for these models. */
  tolerance: number | null;
  xray: boolean;
  wireframe: boolean;
  section: { axis: SectionAxis; at: number } | null;
  measuring: boolean;
}

export function parseTransform(raw: string | null): number[] | null {
  if (!raw) return null;
  const values = raw.split(',').map((s) => Number(s.trim()));
  return values.length === 16 && values.every(Number.isFinite) ? values : null;
}

export function parseCompareState(search: URLSearchParams): CompareState {
  const kind = search.get('kind');
  const tol = Number(search.get('tol'));
  const axis = search.get('section');
  const at = Number(search.get('at'));
  return {
    mode: search.get('mode') === 'overlay' ? 'overlay' : 'side',
    transform: parseTransform(search.get('transform')),
    kind: kind && isMatchKind(kind) ? kind : null,
    tolerance: search.has('tol') && Number.isFinite(tol) && tol >= 0 ? tol : null,
    xray: search.get('xray') === '1',
    wireframe: search.get('wire') === '1',
    section:
      axis === 'x' || axis === 'y' || axis === 'z'
        ? { axis, at: Number.isFinite(at) && search.has('at') ? Math.min(100, Math.max(0, at)) : 50 }
        : null,
    measuring: search.get('measure') === '1',
  };
}

export function formatCompareState(state: CompareState): URLSearchParams {
  const out = new URLSearchParams();
  if (state.kind) out.set('kind', state.kind);
  if (state.mode === 'overlay') out.set('mode', 'overlay');
  if (state.transform) out.set('transform', state.transform.map((n) => Number(n.toPrecision(9))).join(','));
  if (state.tolerance !== null) out.set('tol', String(Number(state.tolerance.toPrecision(4))));
  if (state.xray) out.set('xray', '1');
  if (state.wireframe) out.set('wire', '1');
  if (state.section) {
    out.set('section', state.section.axis);
    out.set('at', String(Math.round(state.section.at)));
  }
  if (state.measuring) out.set('measure', '1');
  return out;
}

export { defaultTolerance } from '../../contract/deviation-report';

/** The tolerance slider's range: 0 to 5 % of the larger model's diagonal. */
export function toleranceMax(diagonal: number): number {
  return diagonal > 0 ? diagonal * 0.05 : 10;
}

export function distance(a: readonly number[], b: readonly number[]): number {
  return Math.hypot((a[0] ?? 0) - (b[0] ?? 0), (a[1] ?? 0) - (b[1] ?? 0), (a[2] ?? 0) - (b[2] ?? 0));
}
