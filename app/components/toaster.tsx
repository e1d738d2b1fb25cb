// Toast notifications: a polite live region, each toast closing itself after a while. There is
// at most one toast of each kind (success, error): a newer one replaces the older, so they never
// pile up. They sit over the fixed navigation bar at the top of the page, which holds no form, in
// the lane between its brand and links and its buttons (the bar measures it: site-nav.tsx), so they
// cover none of the page's forms, lists or codes, nor the cart and account buttons; where that lane
// is too narrow to read a toast in (phones), just under the bar, across the page; while a dialog
// offers them a place of its own (the cart drawer, a confirmation), they appear there, in the
// flow, so they never cover its actions and stay inside the modal for assistive technology.
import { X } from "~/components/icons";
import { createContext, type ReactNode, useCallback, useContext, useMemo, useRef, useState } from "react";
import { createPortal } from "react-dom";
import type { Toast } from "~/lib/toast";

interface ShownToast extends Toast {
  id: number;
}

const ToastContext = createContext<(toast: Toast) => void>(() => {});
const ToastHostContext = createContext<(host: HTMLElement | null) => void>(() => {});

const DISMISS_AFTER_MS = 5000;

const kindOf = (toast: Toast) => toast.variant ?? "default";

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<ShownToast[]>([]);
  const [host, setHost] = useState<HTMLElement | null>(null);
  const nextId = useRef(1);

  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((t) => t.id !== id)), []);
  const show = useCallback(
    (toast: Toast) => {
      const id = nextId.current++;
      setToasts((all) => [...all.filter((t) => kindOf(t) !== kindOf(toast)), { ...toast, id }]);
      setTimeout(() => dismiss(id), DISMISS_AFTER_MS);
    },
    [dismiss],
  );

  const list = (
    <ol
      aria-live="polite"
      aria-label="Notifications"
      className={
        host
          ? "flex flex-col gap-2 px-5 pb-3 empty:hidden"
          : "pointer-events-none fixed top-[var(--toast-lane-top,0px)] right-[var(--toast-lane-right,0px)] left-[var(--toast-lane-left,0px)] z-[100] flex flex-col items-end gap-1 p-1.5 sm:p-2"
      }
    >
      {toasts.map((toast) => (
        <li key={toast.id} className="pointer-events-auto w-full max-w-[26rem]">
          <div
            role={toast.variant === "destructive" ? "alert" : "status"}
            className={`flex items-start gap-3 rounded-lg border px-4 py-2.5 shadow-xl ${
              toast.variant === "destructive" ? "border-red-500/50 bg-red-950 text-red-50" : "border-line bg-panel-2 text-zinc-100"
            }`}
          >
            <div className="min-w-0 flex-1">
              <p className="text-sm font-semibold">{toast.title}</p>
              {toast.description ? <p className="mt-1 text-sm opacity-90">{toast.description}</p> : null}
            </div>
            <button
              type="button"
              onClick={() => dismiss(toast.id)}
              className="rounded p-1 opacity-70 hover:opacity-100"
              aria-label="Dismiss notification"
            >
              <X className="size-4" aria-hidden />
            </button>
          </div>
        </li>
      ))}
    </ol>
  );

  return (
    <ToastContext.Provider value={show}>
      <ToastHostContext.Provider value={setHost}>
        {children}
        {host ? createPortal(list, host) : list}
      </ToastHostContext.Provider>
    </ToastContext.Provider>
  );
}

export function useToast() {
  const show = useContext(ToastContext);
  return useMemo(() => ({ toast: show }), [show]);
}

/** A ref for the element that should hold the toasts while it is mounted (a dialog's own area). */
export function useToastHost(): (host: HTMLElement | null) => void {
  return useContext(ToastHostContext);
}
