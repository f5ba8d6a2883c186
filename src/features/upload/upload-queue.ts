// Batches one after another: while one is sent, the next can be reviewed and queued, and so on.
// The last batch is always the one that takes new files; once it starts (or is queued), an empty
// one is added after it. A queued batch is sent when every batch before it has been sent; the
// batch being sent owns the saved copy and the header's status. A forgotten batch leaves the list.
import { UploadSession, uploadSession, type UploadSessionDeps } from './upload-session';

export class UploadQueue {
  private sessions: readonly UploadSession[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly unsubscribe = new Map<UploadSession, () => void>();
  private maxFileBytes: number | null = null;

  constructor(
    first: UploadSession,
    private readonly deps: Omit<UploadSessionDeps, 'mustWait' | 'onStart'> = {},
  ) {
    this.append(first);
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getSessions = (): readonly UploadSession[] => this.sessions;

  /** The service's upload limit, for every batch, present and future. */
  setMaxFileBytes(bytes: number): void {
    this.maxFileBytes = bytes;
    for (const session of this.sessions) session.setMaxFileBytes(bytes);
  }

  /** Whether a batch before this one is being sent or waits its turn. */
  private busyAhead(session: UploadSession): boolean {
    const at = this.sessions.indexOf(session);
    return this.sessions.slice(0, Math.max(0, at)).some((s) => s.isSending() || s.getState().queued);
  }

  private append(session: UploadSession): void {
    if (this.maxFileBytes !== null) session.setMaxFileBytes(this.maxFileBytes);
    this.sessions = [...this.sessions, session];
    this.unsubscribe.set(
      session,
      session.subscribe(() => this.changed(session)),
    );
    this.changed(session);
  }

  private next(): UploadSession {
    const session: UploadSession = new UploadSession({
      ...this.deps,
      mustWait: () => this.busyAhead(session),
      onStart: (starting) => {
        for (const s of this.sessions) if (s !== starting) s.handOver();
      },
    });
    return session;
  }

  private changed(session: UploadSession): void {
    const { phase, queued } = session.getState();
    if (session === this.sessions.at(-1) && (phase === 'running' || queued)) {
      this.append(this.next());
      return;
    }
    if (session !== this.sessions.at(-1) && phase === 'empty' && !queued) {
      this.unsubscribe.get(session)?.();
      this.unsubscribe.delete(session);
      this.sessions = this.sessions.filter((s) => s !== session);
    }
    for (const s of this.sessions) if (s.getState().queued && !this.busyAhead(s)) s.startQueued();
    for (const listener of [...this.listeners]) listener();
  }
}

/** The app's batches; the first is the one restored after a reload. */
export const uploadQueue = new UploadQueue(uploadSession);
