// Toast notifications: a polite live region, each toast closing itself after a while. They sit in
// the corner of the page, except while a dialog offers them a place of its own (the cart drawer
// does, above its total and checkout button): then they appear there, in the flow, so they never
// cover the dialog's actions and stay inside the modal for assistive technology.
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

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<ShownToast[]>([]);
  const [host, setHost] = useState<HTMLElement | null>(null);
  const nextId = useRef(1);

  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((t) => t.id !== id)), []);
  const show = useCallback(
    (toast: Toast) => {
      const id = nextId.current++;
      // A toast identical to one still showing replaces it rather than stacking a copy (two
      // requests that overlap can both hand out the same flash toast).
      const same = (t: Toast) => t.title === toast.title && t.description === toast.description && t.variant === toast.variant;
      setToasts((all) => [...all.filter((t) => !same(t)).slice(-3), { ...toast, id }]);
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
          : "pointer-events-none fixed right-0 bottom-0 z-[100] flex w-full max-w-sm flex-col gap-2 p-4"
      }
    >
      {toasts.map((toast) => (
        <li key={toast.id} className="pointer-events-auto">
          <div
            role={toast.variant === "destructive" ? "alert" : "status"}
            className={`flex items-start gap-3 rounded-lg border p-4 shadow-xl ${
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
