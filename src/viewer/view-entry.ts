import { createContext } from 'react';
import type { RootState } from '@react-three/fiber';
import type { Camera } from 'three';

/** One view of the page: where it is copied to, what it shows and what it last drew. */
export class ViewEntry {
  /** Something in the view changed that its camera does not show (a model arrived, a material). */
  private dirty = true;
  /** The camera's world and projection matrices when the view was last drawn. */
  private readonly drawnWith = new Float64Array(32);
  private readonly waiting = new Set<() => void>();
  /** The view's portal state: its scene, camera and size. */
  state: (() => RootState) | null = null;

  constructor(readonly target: HTMLCanvasElement) {}

  attach(state: () => RootState): void {
    this.state = state;
  }

  changed(): void {
    this.dirty = true;
  }

  /** Calls `drawn` once the view has next been copied onto its element; returns a cancel. */
  afterDraw(drawn: () => void): () => void {
    this.waiting.add(drawn);
    return () => this.waiting.delete(drawn);
  }

  /** Whether the view must be drawn again: changed, moved (orbiting, fitting, a linked camera) or resized. */
  stale(camera: Camera, width: number, height: number): boolean {
    camera.updateMatrixWorld();
    const now = [...camera.matrixWorld.elements, ...camera.projectionMatrix.elements];
    return this.dirty || this.target.width !== width || this.target.height !== height || now.some((x, i) => x !== this.drawnWith[i]);
  }

  /** How far the view's element is from the window (0 inside it), to draw the nearest first. */
  distanceFromWindow(): number {
    const rect = this.target.getBoundingClientRect();
    return Math.max(0, rect.top - window.innerHeight, -rect.bottom, rect.left - window.innerWidth, -rect.right);
  }

  /** Copies the picture just drawn in the top-left corner of `source` onto the view's element. */
  copyFrom(source: HTMLCanvasElement, camera: Camera, width: number, height: number): void {
    if (this.target.width !== width || this.target.height !== height) {
      this.target.width = width;
      this.target.height = height;
    }
    const copy = this.target.getContext('2d');
    if (!copy) return;
    copy.clearRect(0, 0, width, height);
    // Read in the same task as the draw: the drawing buffer is not kept past it.
    copy.drawImage(source, 0, 0, width, height, 0, 0, width, height);
    this.dirty = false;
    this.drawnWith.set([...camera.matrixWorld.elements, ...camera.projectionMatrix.elements]);
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const drawn of waiting) drawn();
  }
}

/**
 * Set inside each view of the shared canvas (shared-canvas.tsx): there a frame of the canvas is
 * not a frame on screen, so "drawn" means copied onto the view's own element.
 */
export const SharedViewContext = createContext<ViewEntry | null>(null);
