// The drawing on the sketch page as data: strokes of points in the pad's own pixels, with undo,
// and the keyboard pen (a cursor moved by the arrow keys that draws while it is down). Pure: the
// pad (sketch-pad.tsx) turns events into these steps and draws the result.

/** The pad's drawing surface, in its own pixels (it is shown scaled to the page's width). */
export const PAD = { width: 800, height: 560 } as const;

/** Pen widths offered, in pad pixels. */
export const PEN_WIDTHS = [
  { label: 'Thin', width: 3 },
  { label: 'Medium', width: 6 },
  { label: 'Thick', width: 10 },
] as const;

export type Point = readonly [x: number, y: number];

export interface Stroke {
  width: number;
  points: readonly Point[];
}

export interface Drawing {
  strokes: readonly Stroke[];
  /** The keyboard pen: where it is, and whether it draws (then the last stroke is its). */
  cursor: Point;
  penDown: boolean;
}

export const emptyDrawing: Drawing = { strokes: [], cursor: [PAD.width / 2, PAD.height / 2], penDown: false };

const clamp = ([x, y]: Point): Point => [Math.min(PAD.width, Math.max(0, x)), Math.min(PAD.height, Math.max(0, y))];

/** A new stroke from `at` (pointer down, or the keyboard pen put down). */
export function startStroke(d: Drawing, at: Point, width: number): Drawing {
  return { ...d, strokes: [...d.strokes, { width, points: [clamp(at)] }] };
}

/** The stroke being drawn goes on to `to`. */
export function extendStroke(d: Drawing, to: Point): Drawing {
  const last = d.strokes.at(-1);
  if (!last) return d;
  return { ...d, strokes: [...d.strokes.slice(0, -1), { ...last, points: [...last.points, clamp(to)] }] };
}

/** Takes back the last stroke (the keyboard pen is lifted with it). */
export function undo(d: Drawing): Drawing {
  return { ...d, strokes: d.strokes.slice(0, -1), penDown: false };
}

/** Keyboard pen: moves by (dx, dy), drawing when down. */
export function moveCursor(d: Drawing, dx: number, dy: number): Drawing {
  const cursor = clamp([d.cursor[0] + dx, d.cursor[1] + dy]);
  const moved = { ...d, cursor };
  return d.penDown ? extendStroke(moved, cursor) : moved;
}

/** Keyboard pen: puts it down (a new stroke starts at the cursor) or lifts it. */
export function togglePen(d: Drawing, width: number): Drawing {
  return d.penDown ? { ...d, penDown: false } : { ...startStroke(d, d.cursor, width), penDown: true };
}

/** Whether anything is drawn (a stroke of one point is a dot, which counts). */
export const isBlank = (d: Drawing) => d.strokes.length === 0;

/** Draws the strokes, dark on white, with round ends and joins as a pen leaves them. */
export function paint(ctx: CanvasRenderingContext2D, strokes: readonly Stroke[]): void {
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, PAD.width, PAD.height);
  ctx.strokeStyle = '#1a1a1a';
  ctx.fillStyle = '#1a1a1a';
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  for (const s of strokes) {
    const [first, ...rest] = s.points;
    if (!first) continue;
    if (rest.length === 0) {
      ctx.beginPath();
      ctx.arc(first[0], first[1], s.width / 2, 0, 2 * Math.PI);
      ctx.fill();
      continue;
    }
    ctx.lineWidth = s.width;
    ctx.beginPath();
    ctx.moveTo(first[0], first[1]);
    for (const [x, y] of rest) ctx.lineTo(x, y);
    ctx.stroke();
  }
}
