import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { errorMessage } from '../../api/client';
import { useDecide, useUndoDecision } from '../../api/duplicate-review';
import { useKeptViewerFile } from '../../api/models';
import type { DuplicateVerdict, ReviewGroup, ReviewMember } from '../../contract/duplicate-review';
import { upAxisOf, type Model } from '../../contract/models';
import { formatDateTime } from '../../ui/format';
import { formatBytes } from '../../ui/format-bytes';
import { formatLength, formatSize, useDisplayUnit } from '../../ui/lengths';
import { safeImageUrl } from '../../ui/safe-url';
import { ModelPreviewCard, PreviewGrid } from '../../viewer/model-preview-card';
import { RelationList } from '../../ui/relation-list';
import { paths } from '../../ui/paths';

const modelLink = (m: Pick<Model, 'id'>) => paths.model.href(m.id);
const compareLink = (a: Model, b: Model) => paths.compare.href(a.id, b.id, { kind: 'part-to-part' });

/** What a designer checks before deciding: real sizes, where it lives, when it came, what uses it. */
function MemberFacts({ member }: { member: ReviewMember }) {
  const unit = useDisplayUnit();
  const { model, usedIn } = member;
  const f = model.facts;
  const folder = model.filePath.includes('/') ? model.filePath.slice(0, model.filePath.lastIndexOf('/')) : '(top level)';
  return (
    <dl>
      <dt>Type</dt>
      <dd>
        {model.fileType.toUpperCase() || '—'}
        {model.fileSize != null ? `, ${formatBytes(model.fileSize)}` : ''}
      </dd>
      {f && (
        <>
          <dt>Size</dt>
          <dd>
            {formatSize(
              f.boundingBox.max.map((max, i) => max - (f.boundingBox.min[i] ?? 0)),
              f.units,
              unit,
            )}
          </dd>
          <dt>Area</dt>
          <dd>{formatLength(f.surfaceArea, f.units, unit, 2)}</dd>
          <dt>Volume</dt>
          <dd>{f.volume === null ? 'not closed' : formatLength(f.volume, f.units, unit, 3)}</dd>
        </>
      )}
      <dt>Folder</dt>
      <dd>{folder}</dd>
      <dt>Created</dt>
      <dd>{formatDateTime(model.createdAt)}</dd>
      {model.metadata.map((md) => (
        <span key={md.metadataKeyId} style={{ display: 'contents' }}>
          <dt>{md.name ?? `Key ${md.metadataKeyId}`}</dt>
          <dd>{md.value}</dd>
        </span>
      ))}
      <dt>Used in</dt>
      <dd>
        {usedIn.length === 0
          ? 'no assembly'
          : usedIn.map((a, i) => (
              <span key={a.id}>
                {i > 0 && ', '}
                <Link to={modelLink(a)}>{a.filePath}</Link>
                {a.by === 'shape' && <span className="muted"> (found by shape)</span>}
              </span>
            ))}
      </dd>
    </dl>
  );
}

function Decide({ member, master, threshold, canEdit }: { member: ReviewMember; master: Model; threshold: number; canEdit: boolean }) {
  const decide = useDecide();
  const undo = useUndoDecision();
  // The decision shown is the one against the master chosen now.
  const decision = member.decision?.masterId === master.id ? member.decision : undefined;
  const [note, setNote] = useState(decision?.note ?? '');
  const send = (verdict: DuplicateVerdict) =>
    decide.mutate({ masterId: master.id, modelId: member.model.id, verdict, threshold, ...(note.trim() ? { note: note.trim() } : {}) });
  const busy = decide.isPending || undo.isPending;
  return (
    <div className="review-member__decide-wrap">
      {canEdit && (
        <>
          <div className="review-member__decide" role="group" aria-label={`Decision on ${member.model.name}`}>
            <button
              type="button"
              className="button button--small"
              aria-pressed={decision?.verdict === 'duplicate'}
              disabled={busy}
              onClick={() => send('duplicate')}
            >
              Duplicate of master
            </button>
            <button
              type="button"
              className="button button--small"
              aria-pressed={decision?.verdict === 'not-duplicate'}
              disabled={busy}
              onClick={() => send('not-duplicate')}
            >
              Not a duplicate
            </button>
            {decision && (
              <button type="button" className="link-button" disabled={busy} onClick={() => undo.mutate(decision.id)}>
                Undo
              </button>
            )}
          </div>
          <input
            className="review-member__note"
            type="text"
            maxLength={2000}
            placeholder="Note (optional)"
            aria-label={`Note on ${member.model.name}`}
            value={note}
            onChange={(event) => setNote(event.target.value)}
          />
        </>
      )}
      {decision ? (
        <p className="muted" data-testid="member-decision">
          {decision.verdict === 'duplicate' ? 'Decided: duplicate of the master' : 'Decided: not a duplicate'} — {decision.decidedBy.name},{' '}
          {formatDateTime(decision.decidedAt)}
          {decision.note ? ` — “${decision.note}”` : ''}
        </p>
      ) : (
        <p className="muted">Not decided yet</p>
      )}
      {(decide.isError || undo.isError) && (
        <p className="form-error" role="alert">
          {errorMessage(decide.error ?? undo.error)}
        </p>
      )}
    </div>
  );
}

/** Opens the comparison of this member with any other of its group (the master has its own button). */
function CompareWithAny({ member, others }: { member: Model; others: readonly Model[] }) {
  const navigate = useNavigate();
  if (others.length === 0) return null;
  return (
    <select
      aria-label={`Compare ${member.name} with another member`}
      value=""
      onChange={(event) =>
        void navigate(
          compareLink(
            others.find((o) => o.id === event.target.value)!,
            member,
          ),
        )
      }
    >
      <option value="">Compare with…</option>
      {others.map((o) => (
        <option key={o.id} value={o.id}>
          {o.filePath}
        </option>
      ))}
    </select>
  );
}

function MemberCard({
  member,
  master,
  onChooseMaster,
  group,
  threshold,
  canEdit,
}: {
  member: ReviewMember;
  master: Model;
  onChooseMaster: () => void;
  group: ReviewGroup;
  threshold: number;
  canEdit: boolean;
}) {
  const [near, setNear] = useState(false);
  const url = useKeptViewerFile(member.model, near);
  const isMaster = member.model.id === master.id;
  const score = group.links.find(
    (l) => (l.a === master.id && l.b === member.model.id) || (l.b === master.id && l.a === member.model.id),
  )?.matchPercentage;
  return (
    <ModelPreviewCard
      testId="review-member"
      cardClassName={`review-member${isMaster ? ' review-member--master' : ''}`}
      url={url}
      label={`3D preview of ${member.model.name}`}
      up={upAxisOf(member.model)}
      thumbnailUrl={safeImageUrl(member.model.thumbnail)}
      onNearViewport={() => setNear(true)}
      // Groups are read by scrolling, and a preview off screen is drawn too (it keeps its copy):
      // files load ten windows ahead (a page is at most 24 groups), so the page is drawn by the time
      // it is read.
      nearMargin="1000% 0px"
      title={<Link to={modelLink(member.model)}>{member.model.name}</Link>}
      subtitle={member.model.filePath}
    >
      <label className="check">
        <input type="radio" name={`master-${group.key}`} checked={isMaster} onChange={onChooseMaster} />
        {isMaster ? <span className="review-badge review-badge--master">Master: the one to keep</span> : 'Keep this one instead'}
      </label>
      {group.suggestedMasterId === member.model.id && <span className="muted">Suggested master: {group.suggestedMasterReason}</span>}
      <MemberFacts member={member} />
      <CompareWithAny
        member={member.model}
        others={group.members.map((m) => m.model).filter((m) => m.id !== member.model.id && m.id !== (isMaster ? '' : master.id))}
      />
      {!isMaster && (
        <>
          <div className="preview-card__meta">
            <span>{score !== undefined ? `${Math.round(score * 10) / 10}% like the master` : 'Linked through another member'}</span>
            <Link
              className="button button--small"
              to={compareLink(master, member.model)}
              aria-label={`Compare ${member.model.name} with ${master.name}`}
            >
              Compare
            </Link>
          </div>
          <Decide key={master.id} member={member} master={master} threshold={threshold} canEdit={canEdit} />
        </>
      )}
    </ModelPreviewCard>
  );
}

/** One group to review: its members side by side on the shared canvas, the master, decisions, and its mirror images and scaled copies beside it. */
export function GroupCard({
  group,
  index,
  threshold,
  canEdit,
}: {
  group: ReviewGroup;
  index: number;
  threshold: number;
  canEdit: boolean;
}) {
  const [chosen, setChosen] = useState<string | null>(null);
  const masterId = chosen && group.members.some((m) => m.model.id === chosen) ? chosen : group.masterId;
  const master = group.members.find((m) => m.model.id === masterId)!.model;
  const models = new Map([...group.relatedModels, ...group.members.map((m) => m.model)].map((m) => [m.id, m]));
  const decided = group.members.filter((m) => m.decision?.masterId === master.id).length;
  return (
    <section className="card review-group" data-testid="review-group" aria-labelledby={`group-${index}`}>
      <div className="review-group__head">
        <h2 id={`group-${index}`} className="card__title">
          Group {index + 1}: {group.members.length} models
        </h2>
        <span className="muted">
          {decided} of {group.members.length - 1} decided
        </span>
      </div>
      <PreviewGrid variant="row">
        {group.members.map((m) => (
          <MemberCard
            key={m.model.id}
            member={m}
            master={master}
            onChooseMaster={() => setChosen(m.model.id)}
            group={group}
            threshold={threshold}
            canEdit={canEdit}
          />
        ))}
      </PreviewGrid>
      <RelationList
        links={group.relations}
        models={models}
        label="Beside this group, not duplicates: mirror images and scaled copies of its members"
      />
    </section>
  );
}
