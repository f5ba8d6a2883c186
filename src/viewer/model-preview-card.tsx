import type { ReactNode } from 'react';
import { SharedModelPreview, type SharedModelPreviewProps } from './shared-model-preview';

export interface ModelPreviewCardProps extends SharedModelPreviewProps {
  /** The card's heading, usually a link to the model (the viewer knows no routes). */
  title: ReactNode;
  /** A line under the title, e.g. the folder path. */
  subtitle?: ReactNode;
  /** Anything below: state, scores, actions. */
  children?: ReactNode;
  /** Extra attributes for tests and styling. */
  testId?: string;
  cardClassName?: string;
}

/**
 * A result card with a shared-canvas 3D preview on top: title, subtitle and whatever the page
 * adds below. Place cards in a {@link PreviewGrid} (or any layout) inside a SharedCanvasProvider.
 */
export function ModelPreviewCard({ title, subtitle, children, testId, cardClassName, ...preview }: ModelPreviewCardProps) {
  return (
    <article className={`preview-card${cardClassName ? ` ${cardClassName}` : ''}`} data-testid={testId}>
      <SharedModelPreview {...preview} />
      <div className="preview-card__title">{title}</div>
      {subtitle != null && <div className="preview-card__subtitle">{subtitle}</div>}
      {children}
    </article>
  );
}

/** A responsive grid of cards. */
export function PreviewGrid({ children, variant = 'grid' }: { children: ReactNode; variant?: 'grid' | 'row' }) {
  return <div className={variant === 'row' ? 'preview-row' : 'preview-grid'}>{children}</div>;
}
