import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { extendStroke, moveCursor, PAD, paint, startStroke, togglePen, undo, type Drawing, type Point } from './drawing';

/** Arrow key → keyboard pen step (pad pixels; Shift for fine steps). */
const STEP = 12;
const FINE_STEP = 3;
const ARROWS: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/**
 * The drawing surface: mouse, pen and finger draw through pointer events (touch does not scroll
 * the page while on it); with the keyboard, arrow keys move a pen that Space puts down and lifts,
 * Ctrl+Z takes back the last stroke — an application region, so a screen reader hands those keys
 * to it. The canvas always shows the drawing that is sent.
 */
export function SketchPad({
  drawing,
  onChange,
  penWidth,
  labelledBy,
  describedBy,
}: {
  drawing: Drawing;
  onChange: (next: Drawing) => void;
  penWidth: number;
  labelledBy: string;
  describedBy: string;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  // Pointer events come faster than renders: each extends the latest drawing, not the last rendered one.
  const drawingRef = useRef(drawing);
  useLayoutEffect(() => {
    drawingRef.current = drawing;
  }, [drawing]);
  const pointer = useRef<number | null>(null);
  const [focused, setFocused] = useState(false);

  useEffect(() => {
    const ctx = canvas.current?.getContext('2d');
    if (ctx) paint(ctx, drawing.strokes);
  }, [drawing.strokes]);

  const at = (event: PointerEvent<HTMLCanvasElement>): Point => {
    const box = event.currentTarget.getBoundingClientRect();
    return [((event.clientX - box.left) / box.width) * PAD.width, ((event.clientY - box.top) / box.height) * PAD.height];
  };

  const onPointerDown = (event: PointerEvent<HTMLCanvasElement>) => {
    if (event.button !== 0 || pointer.current !== null) return;
    pointer.current = event.pointerId;
    event.currentTarget.setPointerCapture?.(event.pointerId);
    const next = startStroke({ ...drawingRef.current, penDown: false }, at(event), penWidth);
    drawingRef.current = next;
    onChange(next);
  };
  const onPointerMove = (event: PointerEvent<HTMLCanvasElement>) => {
    if (pointer.current !== event.pointerId) return;
    // Every sample of a fast stroke (coalesced events), so curves stay smooth.
    const samples = event.nativeEvent.getCoalescedEvents?.() ?? [];
    let next = drawingRef.current;
    if (samples.length > 1) {
      const box = event.currentTarget.getBoundingClientRect();
      for (const s of samples)
        next = extendStroke(next, [((s.clientX - box.left) / box.width) * PAD.width, ((s.clientY - box.top) / box.height) * PAD.height]);
    } else next = extendStroke(next, at(event));
    drawingRef.current = next;
    onChange(next);
  };
  const onPointerEnd = (event: PointerEvent<HTMLCanvasElement>) => {
    if (pointer.current === event.pointerId) pointer.current = null;
  };

  const onKeyDown = (event: KeyboardEvent<HTMLCanvasElement>) => {
    const arrow = ARROWS[event.key];
    if (arrow) {
      const step = event.shiftKey ? FINE_STEP : STEP;
      onChange(moveCursor(drawing, arrow[0] * step, arrow[1] * step));
    } else if (event.key === ' ') onChange(togglePen(drawing, penWidth));
    else if (event.key.toLowerCase() === 'z' && (event.ctrlKey || event.metaKey)) onChange(undo(drawing));
    else return;
    event.preventDefault();
  };

  const [cx, cy] = drawing.cursor;
  return (
    <div className="sketch-pad">
      <canvas
        ref={canvas}
        className="sketch-pad__canvas"
        width={PAD.width}
        height={PAD.height}
        tabIndex={0}
        role="application"
        aria-roledescription="sketch pad"
        aria-labelledby={labelledBy}
        aria-describedby={describedBy}
        data-testid="sketch-canvas"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerEnd}
        onPointerCancel={onPointerEnd}
        onKeyDown={onKeyDown}
        onFocus={() => setFocused(true)}
        onBlur={() => setFocused(false)}
      />
      {focused && (
        <span
          className={`sketch-pad__cursor${drawing.penDown ? ' sketch-pad__cursor--down' : ''}`}
          style={{ left: `${(cx / PAD.width) * 100}%`, top: `${(cy / PAD.height) * 100}%` }}
          aria-hidden="true"
        />
      )}
    </div>
  );
}
