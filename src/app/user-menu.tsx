import { useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { paths } from '../ui/paths';
import { useCurrentUser } from '../api/users';
import { useAuth } from '../features/auth/auth-context';
import { displayUnits, setDisplayUnit, useDisplayUnit } from '../ui/lengths';

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? [parts[0]?.[0], parts[parts.length - 1]?.[0]] : [parts[0]?.[0]];
  return letters.join('').toUpperCase() || '?';
}

export function UserMenu() {
  const { auth, user } = useAuth();
  const [open, setOpen] = useState(false);
  const [signingOut, setSigningOut] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  // The service's word on who this is, read when the menu is first opened; the token's claims until then.
  const me = useCurrentUser(open && Boolean(user));
  const displayUnit = useDisplayUnit();

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setOpen(false);
        buttonRef.current?.focus();
      }
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  if (user === undefined) return <div className="user-menu user-menu--loading" aria-hidden="true" />;
  if (user === null) {
    return (
      <button type="button" className="button button--primary" onClick={() => void auth.signIn()}>
        Sign in
      </button>
    );
  }

  const tenantName = me.data?.tenant?.name ?? user.tenantName;
  const tenantKey = me.data?.tenant?.key ?? me.data?.tenants[0] ?? user.tenant;
  const roleNames = me.data?.workbenchRoles ?? me.data?.roles ?? user.roles;

  const signOut = () => {
    setSigningOut(true);
    auth.signOut().catch(() => setSigningOut(false));
  };

  return (
    <div
      className="user-menu"
      ref={rootRef}
      onBlur={(event) => {
        if (open && !rootRef.current?.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button
        type="button"
        ref={buttonRef}
        className="user-menu__button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((v) => !v)}
      >
        <span className="avatar" aria-hidden="true">
          {initials(user.name)}
        </span>
        <span className="user-menu__name">{user.name}</span>
        <span className="user-menu__caret" aria-hidden="true">
          ▾
        </span>
      </button>
      {open && (
        <div className="user-menu__panel" id={panelId}>
          <dl className="user-menu__facts" aria-busy={me.isFetching}>
            <dt>Name</dt>
            <dd>{me.data?.name ?? user.name}</dd>
            <dt>Email</dt>
            <dd>{me.data?.email ?? user.email ?? '—'}</dd>
            <dt>Organisation</dt>
            <dd>
              {tenantName ?? tenantKey ?? '—'}
              {tenantName && tenantKey && <span className="muted"> ({tenantKey})</span>}
            </dd>
            {roleNames.length > 0 && (
              <>
                <dt>Roles</dt>
                <dd>{roleNames.join(', ')}</dd>
              </>
            )}
          </dl>
          <fieldset className="user-menu__units">
            <legend>Show lengths in</legend>
            {displayUnits.map((unit) => (
              <label key={unit} className="check">
                <input type="radio" name="length-unit" value={unit} checked={displayUnit === unit} onChange={() => setDisplayUnit(unit)} />
                {unit === 'mm' ? 'Millimetres' : 'Inches'}
              </label>
            ))}
          </fieldset>
          {roleNames.some((r) => r === 'admin' || r === 'Administrators') && (
            <Link className="user-menu__link" to={paths.webhooks.href()} onClick={() => setOpen(false)}>
              Webhooks
            </Link>
          )}
          <button type="button" className="button user-menu__signout" onClick={signOut} disabled={signingOut}>
            Sign out
          </button>
        </div>
      )}
    </div>
  );
}
