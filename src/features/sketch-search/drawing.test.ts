import { describe, expect, it } from 'vitest';
import { emptyDrawing, extendStroke, isBlank, moveCursor, PAD, startStroke, togglePen, undo } from './drawing';

describe('the sketch drawing', () => {
  it('keeps strokes apart and takes back the last one', () => {
    let d = startStroke(emptyDrawing, [10, 10], 3);
    d = extendStroke(d, [20, 30]);
    d = startStroke(d, [50, 50], 6);
    expect(d.strokes.map((s) => s.points.length)).toEqual([2, 1]);
    d = undo(d);
    expect(d.strokes).toEqual([
      {
        width: 3,
        points: [
          [10, 10],
          [20, 30],
        ],
      },
    ]);
    expect(isBlank(undo(d))).toBe(true);
  });

  it('draws with the keyboard pen only while it is down, inside the pad', () => {
    let d = moveCursor(emptyDrawing, 10, 0);
    expect(isBlank(d)).toBe(true);
    d = togglePen(d, 3);
    d = moveCursor(d, 0, 10);
    d = moveCursor(d, -10_000, 0);
    expect(d.strokes[0]!.points).toEqual([
      [PAD.width / 2 + 10, PAD.height / 2],
      [PAD.width / 2 + 10, PAD.height / 2 + 10],
      [0, PAD.height / 2 + 10],
    ]);
    d = togglePen(d, 3);
    d = moveCursor(d, 5, 5);
    expect(d.strokes[0]!.points).toHaveLength(3);
    expect(undo(togglePen(d, 3)).penDown).toBe(false);
  });
});
