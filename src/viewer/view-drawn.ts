import { createContext } from 'react';

/** What a scene inside one view of the shared canvas can ask of it. */
export interface SharedViewHandle {
  /** Calls `drawn` once the view has next been copied onto its element; returns a cancel. */
  afterDraw: (drawn: () => void) => () => void;
}

/**
 * Set inside each view of the shared canvas (shared-canvas.tsx): there a frame of the canvas is
 * not a frame on screen, so "drawn" means copied onto the view's own element.
 */
export const SharedViewContext = createContext<SharedViewHandle | null>(null);
