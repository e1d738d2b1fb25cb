// "—— or ——" between two ways of doing the same thing (a password or a passkey, a code or a passkey).
export function OrDivider() {
  return (
    <div className="flex items-center gap-3 text-xs text-muted" aria-hidden>
      <span className="h-px flex-1 bg-line" /> or <span className="h-px flex-1 bg-line" />
    </div>
  );
}
