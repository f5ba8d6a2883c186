// Page init script (runs in the browser before the app): keeps every WebGL context the page
// creates, so a test or bench can ask how many are still alive. Shared by e2e and bench:matches.
export const countContexts = () => {
  const contexts: WebGLRenderingContext[] = [];
  (window as unknown as { __webgl: WebGLRenderingContext[] }).__webgl = contexts;
  const original = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, type: string, ...rest: unknown[]) {
    const context = (original as (...a: unknown[]) => unknown).call(this, type, ...rest);
    if (context && /webgl/.test(type) && !contexts.includes(context as WebGLRenderingContext))
      contexts.push(context as WebGLRenderingContext);
    return context;
  } as typeof original;
};

/** In the page: how many of the kept contexts are not lost. */
export const liveContextCount = () =>
  (window as unknown as { __webgl: WebGLRenderingContext[] }).__webgl.filter((c) => !c.isContextLost()).length;
