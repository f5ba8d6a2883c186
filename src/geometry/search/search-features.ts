// Everything geometric search needs about one model, computed once at ingestion (in a worker):
// the part-to-part vector, the geo-related vector, one vector per distinct shell (part-in-part
// candidates inside assemblies) and a compact binary of the analysis + surface samples that exact
// rescoring and containment rebuild at query time without the mesh.
import { analyseShape, REGISTRATION_SAMPLES, type ShapeAnalysis } from './descriptors/analysis';
import type { ContainmentModel } from './descriptors/containment';
import { geoDescriptorFromAnalysis } from './descriptors/geo-descriptor';
import { GLOBAL_DESCRIPTOR_VERSION, globalDescriptorFromAnalysis } from './descriptors/global-descriptor';
import type { PreparedPart } from './descriptors/rescore';
import type { Pose } from './descriptors/pose';
import { coverage, icp, indexSurface, subsetIndices } from './descriptors/registration';
import { invertRigid, rigidToMat4, type Rigid } from '../mesh/transform';
import { poseHypotheses } from './descriptors/rescore';
import { type SurfaceSamples } from './descriptors/sampling';
import { chordErrors, turnRate } from './descriptors/chord';
import { sampleThickness } from './descriptors/thickness';
import { mayHideSurface, outerSurface } from './descriptors/outer-surface';
import { MM_PER_UNIT, type Mesh, type Vec3 } from '../mesh/mesh';
import type { MeshFacts, WeldResult } from '../mesh/mesh-facts';
import { areaAndVolume, shellRoots, surfaceArea, weld } from '../mesh/mesh-facts';

/**
 * Bumped whenever stored search features change meaning (descriptor version included). 2010: the
 * outer surface drops faces lying on another body's face and looks for exterior space around a
 * point; chord errors pass along a coarse curve's facets. 2013: thin-walled parts keep 8,192
 * samples, and distances in spacings are taken at 4,096 samples' (spacingSamples). 2014: each
 * sample's thickness and clearance (thickness.ts) for the duplicate rule's dimension test. 2015:
 * those measures corrected for tessellation (a facet lies off its curve towards the centre).
 * 2016: a coarse curve's facets measured across to parallel facets; a diameter's allowance a tenth.
 * 2017: a facet too bent to measure from is stored as not measured, apart from nothing there; a
 * wall's allowance a tenth from either of its concentric curves. 2018: the outer surface found in
 * the part's own frame (a file turned in space keeps the same outer surface). 2019: two bodies'
 * curved faces touching (a bolt's shank in its hole) dropped within their chord errors. 2020: a
 * model with fine features in places (a package's leads or balls) gets 8,192 samples.
 */
export const SEARCH_FEATURES_VERSION = 2020 + GLOBAL_DESCRIPTOR_VERSION;

/** At most this many distinct shells get their own vector (the largest by area). */
export const MAX_COMPONENTS = 12;
/** Shells below this share of the model's area are too small to anchor a part-in-part candidate. */
const MIN_COMPONENT_SHARE = 0.002;
/** Samples per shell descriptor: candidates only, so fewer than the model's own. */
const COMPONENT_SAMPLES = 1024;
/** Stored samples: single-shell parts keep the analysis samples; assemblies get denser ones, so a small part in them is covered. */
const ASSEMBLY_SAMPLES = 8192;
/**
 * Samples of a thin-walled model's outer surface kept for part-to-part: twice the registration
 * default, so that a face narrower than 4,096 samples' spacing (a thin wall's rim, a small hole
 * through it) holds some on both models, and a feature moved there leaves enough off to be seen.
 * Distances in spacings (the rule's searches, alignment's) stay at 4,096 samples' spacing, where
 * they were set; the descriptor draws as many samples as before.
 */
const THIN_WALLED_SAMPLES = 2 * REGISTRATION_SAMPLES;
/**
 * A model is thin-walled when its mean wall — twice its volume over its area, the thickness of a
 * plate of that volume and area — is under this many spacings of 4,096 samples. On the dev split
 * the covers and housings lie at 0.4–0.7, swept and pipe elbows at 1.0–1.2 (where 8,192 samples
 * found missed pairs), hinge leaves, swept pipes and a T profile at 1.3–1.5, and plates, flanges,
 * gears and shafts at 2–9. A surface that encloses nothing measurable reads as thin: more samples
 * cost time, never a match.
 */
const THIN_WALL = 1.5;

function thinWalled(surface: Mesh): boolean {
  const { area, volume } = areaAndVolume(surface);
  return area > 0 && (2 * Math.abs(volume)) / area < THIN_WALL * Math.sqrt(area / REGISTRATION_SAMPLES);
}

/**
 * A model with fine features in places gets the thin-walled count too: when at least this share of
 * its 4,096 samples lie on material thinner than one spacing (thickness.ts, measured along each
 * sample's normal) or on a curve of a radius under 1.5 spacings (chord.ts's turnRate, the inverse
 * radius from its facets' chord error and bend; fewer than 10 samples around it). The mean wall
 * misses a part whose bulk is solid: a chip package's gull-wing leads of 0.15 mm sheet beside a 1.4 mm body, where 4,096 samples' spacing is
 * 0.28 mm and a lead's edges hold almost none; a ball grid array's 0.25 mm balls, a few samples
 * each, whose nearest sample of the other faces up to 80° away. Set at 5 % on the thin share alone
 * (packages 10–21 %, assemblies and relays 1–3 %); with the curves, 12 % of the dev split's models
 * and half of the real set's (KiCad parts 10–78 %, CAx-IF parts up to 10 %) pass it.
 */
const FINE_FEATURE_SHARE = 0.05;

function fineFeatures(a: ShapeAnalysis): boolean {
  const inward = a.thickness?.inward;
  const { chord, bend } = a;
  const spacing = Math.sqrt(a.samples.area / REGISTRATION_SAMPLES);
  let fine = 0;
  for (let i = 0; i < a.samples.count; i++) {
    const t = inward?.[i] ?? 0;
    if ((t > 0 && t < spacing) || 1.5 * spacing * turnRate(chord?.[i], bend?.[i]) > 1) fine++;
  }
  return fine >= FINE_FEATURE_SHARE * a.samples.count;
}

export interface SearchComponent {
  /** Global descriptor of the shell (same layout and distance as the model's own). */
  descriptor: Float32Array;
  /** Share of the model's surface area in this shell, times `copies`. */
  areaShare: number;
  /** Identical shells (same triangle count and area) counted once. */
  copies: number;
  /** Principal frame of the first copy (mm, in the model's frame): seeds part-in-part placement. */
  pose: Pose;
}

export interface SearchFeatures {
  version: number;
  /** Part-to-part vector (GLOBAL_DESCRIPTOR_LENGTH). */
  global: Float32Array;
  /** Geo-related vector (GEO_DESCRIPTOR_LENGTH). */
  geo: Float32Array;
  /** Surface area (mm²). */
  area: number;
  shells: number;
  /** Per distinct shell; a single-shell model has one, equal to the model itself. */
  components: SearchComponent[];
  /** {@link encodePrepared} of the analysis with the stored samples. */
  prepared: Uint8Array;
}

/**
 * Computes the search bundle. Pass the weld and facts ingestion already made (the weld gives
 * shell connectivity for free).
 */
export function computeSearchFeatures(
  mesh: Mesh,
  o: { facts: Pick<MeshFacts, 'genus' | 'shellCount'>; welded?: WeldResult },
): SearchFeatures {
  const welded = (o.welded ?? weld(mesh)).mesh;
  // Part-to-part compares outer surfaces (internal faces and enclosed bodies dropped), with each
  // sample's chord error for the duplicate rule.
  const triangleChord = chordErrors(welded);
  let surface = welded;
  let surfaceChord: { chord: ArrayLike<number>; bend: ArrayLike<number>; side: ArrayLike<number> } = triangleChord;
  if (mayHideSurface(welded, o.facts.shellCount)) {
    const outer = outerSurface(welded, triangleChord);
    if (outer.hiddenShare > 0 && outer.mesh.indices.length) {
      surface = outer.mesh;
      surfaceChord = {
        chord: Float32Array.from(outer.source, (t) => triangleChord.chord[t]!),
        bend: Float32Array.from(outer.source, (t) => triangleChord.bend[t]!),
        side: Int8Array.from(outer.source, (t) => triangleChord.side[t]!),
      };
    }
  }
  const analyse = (samples: number) => {
    const a = analyseShape(surface, {
      samples,
      statSamples: 4 * REGISTRATION_SAMPLES,
      spacingSamples: REGISTRATION_SAMPLES,
      triangleChord: surfaceChord,
    });
    a.thickness = sampleThickness(surface, a.samples, surfaceChord);
    return a;
  };
  let analysis = analyse(thinWalled(surface) ? THIN_WALLED_SAMPLES : REGISTRATION_SAMPLES);
  if (analysis.samples.count === REGISTRATION_SAMPLES && fineFeatures(analysis)) analysis = analyse(THIN_WALLED_SAMPLES);
  const global = globalDescriptorFromAnalysis(analysis);
  const geo = geoDescriptorFromAnalysis(analysis, o.facts);
  if (o.facts.shellCount <= 1) {
    const components = [{ descriptor: global, areaShare: 1, copies: 1, pose: analysis.pose }];
    // The area of every face, not only the outer ones: known containment shares are of all of it.
    const u = MM_PER_UNIT[mesh.units ?? 'unknown'];
    return {
      version: SEARCH_FEATURES_VERSION,
      global,
      geo,
      area: surfaceArea(welded) * u * u,
      shells: o.facts.shellCount,
      components,
      prepared: encodePrepared(analysis),
    };
  }
  // Several bodies: part-in-part looks for parts among all of them, so it keeps every body, with
  // denser samples so that a small part in them is covered.
  const all = analyseShape(mesh, { samples: ASSEMBLY_SAMPLES, statSamples: ASSEMBLY_SAMPLES, seed: 3 });
  const components = shellComponents(welded, mesh.units, all.moments.area);
  return {
    version: SEARCH_FEATURES_VERSION,
    global,
    geo,
    area: all.moments.area,
    shells: o.facts.shellCount,
    components,
    prepared: encodePrepared(analysis, all),
  };
}

/** Connected shells of a welded mesh, identical ones merged, largest first, capped. */
function shellComponents(welded: Mesh, units: Mesh['units'], totalArea: number): SearchComponent[] {
  const idx = welded.indices;
  const root = shellRoots(idx, welded.positions.length / 3);
  const byRoot = new Map<number, number[]>();
  for (let t = 0; t < idx.length; t += 3) {
    const r = root[idx[t]!]!;
    let list = byRoot.get(r);
    if (!list) byRoot.set(r, (list = []));
    list.push(t);
  }
  const p = welded.positions;
  const scale = MM_PER_UNIT[units ?? 'unknown'];
  const shells = [...byRoot.values()].map((tris) => {
    let a = 0;
    for (const t of tris) a += triangleArea(p, idx[t]!, idx[t + 1]!, idx[t + 2]!);
    return { tris, area: a * scale * scale };
  });
  // Identical copies (a bolt used six times) share triangle count and area: analyse one.
  const groups = new Map<string, { tris: number[]; area: number; copies: number }>();
  for (const s of shells) {
    const key = `${s.tris.length}:${s.area.toPrecision(6)}`;
    const g = groups.get(key);
    if (g) g.copies++;
    else groups.set(key, { ...s, copies: 1 });
  }
  const chosen = [...groups.values()]
    .filter((g) => (g.area * g.copies) / totalArea >= MIN_COMPONENT_SHARE)
    .sort((x, y) => y.area * y.copies - x.area * x.copies)
    .slice(0, MAX_COMPONENTS);
  return chosen.map((g) => {
    const sub = subMesh(welded, g.tris, units);
    const a = analyseShape(sub, { samples: COMPONENT_SAMPLES });
    return {
      descriptor: globalDescriptorFromAnalysis(a),
      areaShare: Math.min(1, (g.area * g.copies) / totalArea),
      copies: g.copies,
      pose: a.pose,
    };
  });
}

function triangleArea(p: Float32Array, a: number, b: number, c: number): number {
  const ux = p[b * 3]! - p[a * 3]!,
    uy = p[b * 3 + 1]! - p[a * 3 + 1]!,
    uz = p[b * 3 + 2]! - p[a * 3 + 2]!;
  const vx = p[c * 3]! - p[a * 3]!,
    vy = p[c * 3 + 1]! - p[a * 3 + 1]!,
    vz = p[c * 3 + 2]! - p[a * 3 + 2]!;
  return 0.5 * Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
}

function subMesh(mesh: Mesh, tris: number[], units: Mesh['units']): Mesh {
  const map = new Map<number, number>();
  const indices = new Uint32Array(tris.length * 3);
  const pos: number[] = [];
  let k = 0;
  for (const t of tris) {
    for (let j = 0; j < 3; j++) {
      const v = mesh.indices[t + j]!;
      let n = map.get(v);
      if (n === undefined) {
        n = map.size;
        map.set(v, n);
        pos.push(mesh.positions[v * 3]!, mesh.positions[v * 3 + 1]!, mesh.positions[v * 3 + 2]!);
      }
      indices[k++] = n;
    }
  }
  const out: Mesh = { positions: Float32Array.from(pos), indices };
  if (units !== undefined) out.units = units;
  return out;
}

// --- compact binary of the analysis --------------------------------------------------------
//
// Layout: "GSF1" | u32 header length | header JSON (UTF-8) | pad to 4 | i16 points (3n, relative
// to the samples' box, 65535 steps per axis) | i8 normals (3n, ×127) | u8 chord errors (n, ×
// chordStep) | u8 bends (n, of π/2) | u16 thickness, then u16 clearance (n each, × thicknessStep;
// 0: none, 65535: not measured) | u8 their tessellation errors (2n, × thicknessErrorStep). About 17 bytes per sample
// (70 KB for 4,096, 139 KB for a thin-walled part's 8,192): 1/65535 of the part's size is far
// below the tolerances registration uses. Models of several bodies append a second blob of the same layout: all their bodies, for
// part-in-part.

const MAGIC = 0x31465347; // "GSF1" little-endian
/** A stored thickness or clearance of this: not measured (NaN, thickness.ts). */
const NOT_MEASURED = 65535;
/** Bends are stored as u8 up to this (radians); larger ones are design edges anyway. */
const BEND_MAX = Math.PI / 2;

interface PreparedHeader {
  moments: ShapeAnalysis['moments'];
  pose: ShapeAnalysis['pose'];
  extents: Vec3;
  volume: number;
  rmsRadius: number;
  count: number;
  area: number;
  min: Vec3;
  step: Vec3;
  /** Chord errors follow the normals as u8 × this (mm), then bends as u8 of π/2; absent: neither stored. */
  chordStep?: number;
  /** See ShapeAnalysis.spacingSamples; absent: `count`. */
  spacingSamples?: number;
  /** Thickness and clearance follow the bends as u16 × this (mm); absent: neither stored. */
  thicknessStep?: number;
  /** Their tessellation errors follow as u8 × this (mm); absent: not stored. */
  thicknessErrorStep?: number;
}

/**
 * The analysis for part-to-part, and for models of several shells the analysis of all their
 * bodies for part-in-part, appended as a second blob of the same layout (the first blob's end is
 * known from its header).
 */
export function encodePrepared(a: ShapeAnalysis, containment?: ShapeAnalysis): Uint8Array {
  const first = encodeOne(a);
  if (!containment) return first;
  const second = encodeOne(containment);
  const out = new Uint8Array(align4(first.length) + second.length);
  out.set(first, 0);
  out.set(second, align4(first.length));
  return out;
}

function encodeOne(a: ShapeAnalysis): Uint8Array {
  const s = a.samples;
  const n = s.count;
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 3; k++) {
      const v = s.points[i * 3 + k]!;
      if (v < min[k]!) min[k] = v;
      if (v > max[k]!) max[k] = v;
    }
  }
  if (n === 0) {
    min.fill(0);
    max.fill(0);
  }
  const step = [0, 1, 2].map((k) => Math.max((max[k]! - min[k]!) / 65535, 1e-12)) as Vec3;
  let maxChord = 0;
  if (a.chord) for (const c of a.chord) maxChord = Math.max(maxChord, c);
  let maxThickness = 0,
    maxError = 0;
  if (a.thickness) for (const t of [a.thickness.inward, a.thickness.outward]) for (const v of t) if (v > maxThickness) maxThickness = v;
  for (const t of [a.thickness?.inwardError, a.thickness?.outwardError]) if (t) for (const v of t) maxError = Math.max(maxError, v);
  const header: PreparedHeader = {
    moments: a.moments,
    pose: a.pose,
    extents: a.extents,
    volume: a.volume,
    rmsRadius: a.rmsRadius,
    count: n,
    area: s.area,
    min,
    step,
    ...(a.chord && maxChord > 0 ? { chordStep: maxChord / 255 } : {}),
    ...(a.spacingSamples ? { spacingSamples: a.spacingSamples } : {}),
    ...(a.thickness && maxThickness > 0 ? { thicknessStep: maxThickness / (NOT_MEASURED - 1) } : {}),
    ...(a.thickness && maxThickness > 0 && maxError > 0 ? { thicknessErrorStep: maxError / 255 } : {}),
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const headerEnd = align4(8 + json.length);
  const chordEnd = headerEnd + n * 9 + (header.chordStep ? 2 * n : 0);
  const withErrors = !!header.thicknessErrorStep;
  const bytes = new Uint8Array(align2(chordEnd) + (header.thicknessStep ? 4 * n : 0) + (withErrors ? 2 * n : 0));
  const view = new DataView(bytes.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, json.length, true);
  bytes.set(json, 8);
  // Typed-array views write the same little-endian bytes as DataView calls, several times faster.
  const le = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  const q = le ? new Uint16Array(bytes.buffer, headerEnd, n * 3) : undefined;
  const nq = new Int8Array(bytes.buffer, headerEnd + n * 6, n * 3);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 3; k++) {
      const v = Math.round((s.points[i * 3 + k]! - min[k]!) / step[k]!);
      if (q) q[i * 3 + k] = v;
      else view.setUint16(headerEnd + (i * 3 + k) * 2, v, true);
      nq[i * 3 + k] = Math.round(Math.max(-1, Math.min(1, s.normals[i * 3 + k]!)) * 127);
    }
  }
  // Rounded up: a tolerance is never narrowed by storing it.
  if (header.chordStep) {
    for (let i = 0; i < n; i++) bytes[headerEnd + n * 9 + i] = Math.min(255, Math.ceil(a.chord![i]! / header.chordStep));
    for (let i = 0; i < n; i++) bytes[headerEnd + n * 10 + i] = Math.min(255, Math.ceil(((a.bend?.[i] ?? 0) / BEND_MAX) * 255));
  }
  if (header.thicknessStep) {
    const step = header.thicknessStep;
    const t = a.thickness!;
    // A thickness that is there stays above 0 (which means none) when rounded, and below
    // NOT_MEASURED.
    const put = (v: number) => (Number.isNaN(v) ? NOT_MEASURED : v > 0 ? Math.max(1, Math.min(NOT_MEASURED - 1, Math.round(v / step))) : 0);
    for (let i = 0; i < n; i++) {
      view.setUint16(align2(chordEnd) + i * 2, put(t.inward[i]!), true);
      view.setUint16(align2(chordEnd) + (n + i) * 2, put(t.outward[i]!), true);
    }
    if (withErrors) {
      const at = align2(chordEnd) + 4 * n;
      // Rounded up, as chord errors are: a tolerance is never narrowed by storing it.
      const e = header.thicknessErrorStep!;
      for (let i = 0; i < n; i++) bytes[at + i] = Math.min(255, Math.ceil(t.inwardError![i]! / e));
      for (let i = 0; i < n; i++) bytes[at + n + i] = Math.min(255, Math.ceil(t.outwardError![i]! / e));
    }
  }
  return bytes;
}

/** The part-to-part analysis of a blob, or with `which: 'containment'` its all-bodies analysis (the same one for a single body). */
export function decodePrepared(bytes: Uint8Array, which: 'part' | 'containment' = 'part'): ShapeAnalysis {
  const first = decodeOne(bytes);
  if (which === 'part' || first.end >= bytes.byteLength) return first.analysis;
  return decodeOne(bytes.subarray(align4(first.end))).analysis;
}

function decodeOne(bytes: Uint8Array): { analysis: ShapeAnalysis; end: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new Error('not a search-features blob');
  const len = view.getUint32(4, true);
  const h = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + len))) as PreparedHeader;
  const headerEnd = align4(8 + len);
  const n = h.count;
  const points = new Float64Array(n * 3);
  const normals = new Float64Array(n * 3);
  for (let i = 0; i < n * 3; i++) {
    const k = i % 3;
    points[i] = h.min[k]! + view.getUint16(headerEnd + i * 2, true) * h.step[k]!;
    normals[i] = view.getInt8(headerEnd + n * 6 + i) / 127;
  }
  for (let i = 0; i < n; i++) {
    const l = Math.hypot(normals[i * 3]!, normals[i * 3 + 1]!, normals[i * 3 + 2]!) || 1;
    for (let k = 0; k < 3; k++) normals[i * 3 + k] = normals[i * 3 + k]! / l;
  }
  const samples: SurfaceSamples = { points, normals, count: n, area: h.area };
  const analysis: ShapeAnalysis = {
    samples,
    moments: h.moments,
    pose: h.pose,
    extents: h.extents,
    volume: h.volume,
    rmsRadius: h.rmsRadius,
    ...(h.spacingSamples ? { spacingSamples: h.spacingSamples } : {}),
  };
  let end = headerEnd + n * 9;
  if (h.chordStep) {
    const step = h.chordStep;
    analysis.chord = Float32Array.from(bytes.subarray(end, end + n), (q) => q * step);
    analysis.bend = Float32Array.from(bytes.subarray(end + n, end + 2 * n), (q) => (q / 255) * BEND_MAX);
    end += 2 * n;
  }
  if (h.thicknessStep) {
    const step = h.thicknessStep;
    end = align2(end);
    const get = (k: number) =>
      Float32Array.from({ length: n }, (_, i) => {
        const q = view.getUint16(end + (k * n + i) * 2, true);
        return q === NOT_MEASURED ? NaN : q * step;
      });
    analysis.thickness = { inward: get(0), outward: get(1) };
    end += 4 * n;
    if (h.thicknessErrorStep) {
      const c = h.thicknessErrorStep;
      analysis.thickness.inwardError = Float32Array.from(bytes.subarray(end, end + n), (q) => q * c);
      analysis.thickness.outwardError = Float32Array.from(bytes.subarray(end + n, end + 2 * n), (q) => q * c);
      end += 2 * n;
    }
  }
  return { analysis, end };
}

/** Rebuilds what partToPartRescore needs from the stored blob and vector. */
export function preparedPartFrom(bytes: Uint8Array, descriptor: Float32Array): PreparedPart {
  const analysis = decodePrepared(bytes);
  return { analysis, surface: indexSurface(analysis.samples, analysis.spacingSamples), descriptor };
}

/** Rebuilds what containment() needs from the stored blob. */
export function containmentModelFrom(bytes: Uint8Array): ContainmentModel {
  const analysis = decodePrepared(bytes, 'containment');
  return { analysis, surface: indexSurface(analysis.samples, analysis.spacingSamples) };
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

/**
 * Part-in-part placement seeded by a matched pair of shells (the query's `queryShell`, the
 * other's `otherShell`): the one frame is taken onto the other (sign flips, turns where axes are
 * undetermined), hypotheses are ranked by how much of the smaller model's surface lands on the
 * larger one, the best few refined by ICP. Far cheaper than point-pair-feature voting, and exact
 * when the shells really are the same part. Returns the query placed in the other's frame and
 * the coverage of the smaller model (0..1) under it.
 */
export function placeByShells(
  query: ContainmentModel,
  queryShell: Pose,
  other: ContainmentModel,
  otherShell: Pose,
): { transform: number[]; coverage: number } {
  const hyps = poseHypotheses({ ...query.analysis, pose: queryShell }, { ...other.analysis, pose: otherShell });
  const queryIsSmaller = query.analysis.moments.area <= other.analysis.moments.area;
  const small = queryIsSmaller ? query : other;
  const large = queryIsSmaller ? other : query;
  const toLarge = (h: Rigid) => (queryIsSmaller ? h : invertRigid(h));
  const tol = Math.max(0.05, 0.015 * small.analysis.rmsRadius);
  const s = small.analysis.samples;
  const quick = subsetIndices(s.count, 200);
  const fine = subsetIndices(s.count, 600);
  const ranked = hyps
    .map((h) => ({ m: toLarge(h), c: coverage(s, quick, toLarge(h), large.surface, tol * 3) }))
    .sort((a, b) => b.c - a.c)
    .slice(0, 3);
  let best = { m: ranked[0]?.m ?? toLarge(hyps[0]!), c: -1 };
  for (const r of ranked) {
    const m = icp(s, fine, large.surface, r.m, {
      iterations: 12,
      maxDist: 0.2 * small.analysis.rmsRadius,
      minDist: Math.max(tol, 1.5 * large.surface.spacing),
    });
    const c = coverage(s, fine, m, large.surface, tol);
    if (c > best.c) best = { m, c };
  }
  return { transform: rigidToMat4(queryIsSmaller ? best.m : invertRigid(best.m)), coverage: Math.max(0, best.c) };
}

function align2(n: number): number {
  return (n + 1) & ~1;
}
