// The deviation report as a self-contained PDF (pdf-lib; images PNG-encoded by sharp): one A4
// page — the two models, the placement, the tolerance, the figures both ways, four heat maps with
// their legend, and the histogram of signed distances. Text is in the standard Helvetica, so
// characters it cannot write (e.g. CJK names) are shown as "?"; the names are also in the title.
import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import sharp from 'sharp';
import { deviationColor } from '../../geometry/compare/deviation-scale';
import type { DeviationStats } from '../../geometry/compare/surface-deviation';
import type { HeatMap, DeviationFigures, ReportUnit } from './deviation-report';
import { reportUnits } from './deviation-report';

export interface ReportModel {
  name: string;
  path: string;
  fileType: string;
  units: string;
  triangles: number | null;
  /** Bounding box size in mm. */
  size: [number, number, number] | null;
  /** mm², mm³ (null when not closed). */
  area: number | null;
  volume: number | null;
}

export interface ReportContent {
  a: ReportModel;
  b: ReportModel;
  placement: number[];
  placementSource: string;
  toleranceMm: number;
  units: ReportUnit;
  figures: DeviationFigures;
  heatMaps: HeatMap[];
  createdAt: Date;
}

const ink = rgb(0.1, 0.12, 0.16);
const muted = rgb(0.4, 0.43, 0.5);

export async function deviationPdf(c: ReportContent): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`Deviation report: ${c.a.name} against ${c.b.name}`);
  doc.setSubject(
    `Within ±${length(c.toleranceMm, c.units)}: ${percent(c.figures.aToB.within)} of ${c.a.name}, ${percent(c.figures.bToA.within)} of ${c.b.name}`,
  );
  doc.setProducer('Geometric Search Workbench');
  doc.setCreationDate(c.createdAt);
  const page = doc.addPage([595.28, 841.89]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const text = (s: string, x: number, y: number, o: { size?: number; f?: PDFFont; color?: ReturnType<typeof rgb> } = {}) =>
    page.drawText(writable(s, o.f ?? font), { x, y, size: o.size ?? 9, font: o.f ?? font, color: o.color ?? ink });

  let y = 800;
  text('Deviation report', 40, y, { size: 18, f: bold });
  text(c.createdAt.toISOString().replace('T', ' ').slice(0, 16) + ' UTC', 430, y + 4, { color: muted });
  y -= 28;
  // The two models, side by side.
  for (const [i, m] of [c.a, c.b].entries()) {
    const x = 40 + i * 260;
    let yy = y;
    text(i === 0 ? 'Compared (A)' : 'Reference (B)', x, yy, { f: bold, color: muted });
    yy -= 14;
    text(clip(m.name, 44), x, yy, { size: 11, f: bold });
    yy -= 12;
    text(clip(m.path, 58), x, yy, { color: muted });
    yy -= 12;
    text(`${m.fileType.toUpperCase()}, ${m.triangles?.toLocaleString('en') ?? '—'} triangles, units ${m.units}`, x, yy);
    yy -= 12;
    text(`Size ${m.size ? m.size.map((v) => number(v / reportUnits[c.units])).join(' × ') + ' ' + c.units : '—'}`, x, yy);
    yy -= 12;
    text(
      `Area ${m.area !== null ? `${number(m.area / reportUnits[c.units] ** 2)} ${c.units}²` : '—'}, volume ${m.volume !== null ? `${number(m.volume / reportUnits[c.units] ** 3)} ${c.units}³` : '—'}`,
      x,
      yy,
    );
  }
  y -= 84;
  text('Placement of A on B', 40, y, { f: bold });
  text(c.placementSource, 160, y, { color: muted });
  y -= 12;
  const t = c.placement;
  for (let r = 0; r < 3; r++) {
    const row = [t[r]!, t[4 + r]!, t[8 + r]!].map((v) => v.toFixed(5).padStart(9)).join('  ');
    text(`${row}    ${number(t[12 + r]! / reportUnits[c.units])} ${c.units}`, 50, y);
    y -= 11;
  }
  y -= 8;
  text(`Tolerance ±${length(c.toleranceMm, c.units)}`, 40, y, { f: bold });
  y -= 18;
  // Figures both ways.
  const cols = [40, 230, 330, 430];
  for (const [i, h] of ['', 'within tolerance', 'maximum', 'RMS'].entries()) text(h, cols[i]!, y, { f: bold, color: muted });
  y -= 13;
  const row = (label: string, s: DeviationStats) => {
    text(label, cols[0]!, y);
    text(percent(s.within), cols[1]!, y, { f: bold });
    text(length(s.max, c.units), cols[2]!, y);
    text(length(s.rms, c.units), cols[3]!, y);
    y -= 13;
  };
  row('A to B (A’s surface)', c.figures.aToB);
  row('B to A (B’s surface)', c.figures.bToA);
  text('Shares and RMS are weighted by surface area.', 40, y, { color: muted, size: 8 });
  y -= 16;

  // Heat maps of A, 2 × 2.
  text('A coloured by its distance to B', 40, y, { f: bold });
  y -= 8;
  const cell = (515 - 3 * 8) / 4;
  for (const [i, map] of c.heatMaps.entries()) {
    const png = await sharp(Buffer.from(map.rgba.buffer, map.rgba.byteOffset, map.rgba.byteLength), {
      raw: { width: map.width, height: map.height, channels: 4 },
    })
      .png()
      .toBuffer();
    const image = await doc.embedPng(png);
    const x = 40 + i * (cell + 8),
      top = y;
    page.drawImage(image, { x, y: top - cell, width: cell, height: cell });
    page.drawRectangle({ x, y: top - cell, width: cell, height: cell, borderColor: rgb(0.85, 0.87, 0.9), borderWidth: 0.5 });
    text(map.label, x + 4, top - cell + 4, { size: 8, color: muted });
  }
  y -= cell + 16;
  legend(page, font, 40, y, c);
  y -= 40;
  histogram(page, font, bold, 40, y, 515, 150, c);
  return doc.save();
}

/** The colour bar: green within tolerance, yellow to red up to the scale's top. */
function legend(page: PDFPage, font: PDFFont, x: number, y: number, c: ReportContent) {
  const width = 300,
    steps = 60;
  for (let i = 0; i < steps; i++) {
    const d = (i / (steps - 1)) * c.figures.scaleMax;
    const col = deviationColor(d, c.toleranceMm, c.figures.scaleMax);
    page.drawRectangle({ x: x + (i * width) / steps, y, width: width / steps + 0.2, height: 10, color: rgb(col[0], col[1], col[2]) });
  }
  const label = (s: string, at: number) => page.drawText(writable(s, font), { x: x + at, y: y - 11, size: 8, font, color: muted });
  label('0', 0);
  label(`${length(c.toleranceMm, c.units)} (tolerance)`, (c.toleranceMm / c.figures.scaleMax) * width);
  label(`>= ${length(c.figures.scaleMax, c.units)}`, width - 30);
}

/** Signed distances of A to B: the share of A's surface in each bin, negative inside B. */
function histogram(page: PDFPage, font: PDFFont, bold: PDFFont, x: number, y: number, w: number, h: number, c: ReportContent) {
  const { shares, range } = c.figures.aToB.histogram;
  page.drawText('Signed distance of A to B (share of A’s surface; negative: inside B)'.replace('’', "'"), {
    x,
    y,
    size: 9,
    font: bold,
    color: ink,
  });
  const top = y - 12,
    base = top - h;
  const peak = Math.max(...shares, 1e-9);
  const bw = w / shares.length;
  shares.forEach((s, i) => {
    const mid = -range + ((i + 0.5) / shares.length) * 2 * range;
    const col = deviationColor(Math.abs(mid), c.toleranceMm, c.figures.scaleMax);
    const bh = (s / peak) * (h - 14);
    page.drawRectangle({ x: x + i * bw + 1, y: base, width: bw - 2, height: bh, color: rgb(col[0], col[1], col[2]) });
    if (s > 0.005) page.drawText(`${Math.round(s * 100)}%`, { x: x + i * bw + 2, y: base + bh + 2, size: 6, font, color: muted });
  });
  page.drawLine({ start: { x, y: base }, end: { x: x + w, y: base }, thickness: 0.5, color: muted });
  for (const at of [-range, -range / 2, 0, range / 2, range]) {
    const px = x + ((at + range) / (2 * range)) * w;
    page.drawText(writable(length(at, c.units), font), {
      x: Math.min(x + w - 40, Math.max(x, px - 12)),
      y: base - 11,
      size: 7,
      font,
      color: muted,
    });
  }
}

const number = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(1) : Math.abs(v) >= 1 ? v.toFixed(3) : v.toPrecision(3));
const length = (mm: number, units: ReportUnit) => `${number(mm / reportUnits[units])} ${units}`;
const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Characters Helvetica's encoding cannot write become "?" (pdf-lib would throw on them). */
function writable(s: string, font: PDFFont): string {
  return [...s]
    .map((ch) => {
      try {
        font.encodeText(ch);
        return ch;
      } catch {
        return '?';
      }
    })
    .join('');
}
