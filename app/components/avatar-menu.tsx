// The signed-in member's menu in the navigation bar: account e-mail, Dashboard and Logout.
import { LayoutDashboard, LogOut } from "~/components/icons";
import { useEffect, useId, useRef, useState } from "react";
import { Form } from "react-router";
import { Link } from "~/components/link";
import { avatarInitial, type Viewer } from "~/lib/viewer";

export function Avatar({ viewer, className = "size-9" }: { viewer: Viewer; className?: string }) {
  return viewer.avatarUrl ? (
    <img src={viewer.avatarUrl} alt="" className={`${className} rounded-full object-cover`} />
  ) : (
    <span aria-hidden className={`${className} inline-flex items-center justify-center rounded-full bg-accent font-bold text-zinc-950`}>
      {avatarInitial(viewer.email)}
    </span>
  );
}

export function AvatarMenu({ viewer }: { viewer: Viewer }) {
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const items = () => Array.from(rootRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);
    items()[0]?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        setOpen(false);
        buttonRef.current?.focus();
      } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const all = items();
        const at = all.indexOf(document.activeElement as HTMLElement);
        const next = event.key === "ArrowDown" ? (at + 1) % all.length : (at - 1 + all.length) % all.length;
        all[next]?.focus();
      }
    };
    const onPointer = (event: PointerEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [open]);

  const itemClass =
    "flex w-full items-center gap-2 rounded px-3 py-2 text-left text-sm text-zinc-200 hover:bg-panel-2 focus:bg-panel-2 focus:outline-none";

  return (
    <div ref={rootRef} className="relative">
      <button
        ref={buttonRef}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        aria-label="Account menu"
        onClick={() => setOpen((v) => !v)}
        className="rounded-full"
      >
        <Avatar viewer={viewer} />
      </button>
      <div
        id={menuId}
        role="menu"
        hidden={!open}
        aria-label="Account"
        className="absolute right-0 mt-2 w-60 rounded-lg border border-line bg-panel p-1 shadow-2xl"
      >
        <div className="px-3 py-2">
          <p className="text-sm font-semibold">My Account</p>
          <p className="truncate text-xs text-muted">{viewer.email}</p>
        </div>
        <div className="my-1 h-px bg-line" />
        <Link role="menuitem" to="/dashboard" className={itemClass} onClick={() => setOpen(false)}>
          <LayoutDashboard className="size-4" aria-hidden /> Dashboard
        </Link>
        <Form method="post" action="/auth/logout" onSubmit={() => setOpen(false)}>
          <button role="menuitem" type="submit" className={itemClass}>
            <LogOut className="size-4" aria-hidden /> Logout
          </button>
        </Form>
      </div>
    </div>
  );
}
