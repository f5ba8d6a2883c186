import { Component, type ErrorInfo, type ReactNode } from 'react';

interface BoundaryProps {
  onError: (error: Error) => void;
  children: ReactNode;
}

/** Catches what the canvas throws: a file that cannot be loaded or parsed, or WebGL failing. */
export class ViewerBoundary extends Component<BoundaryProps, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override componentDidCatch(error: Error, _info: ErrorInfo) {
    this.props.onError(error);
  }
  override render() {
    return this.state.failed ? null : this.props.children;
  }
}

/** The failure in a designer's words. */
export function describe(error: Error): string {
  if (/webgl|context/i.test(error.message)) return 'This browser could not start 3D graphics (WebGL).';
  if (/404|not found/i.test(error.message)) return 'The 3D file is not available.';
  return 'The 3D file could not be read.';
}
