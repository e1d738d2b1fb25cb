// Toast notifications: a polite live region in the corner, each toast closing itself after a while.
import { X } from "~/components/icons";
import { createContext, type ReactNode, useCallback, useContext, useMemo, useRef, useState } from "react";
import type { Toast } from "~/lib/toast";

interface ShownToast extends Toast {
  id: number;
}

const ToastContext = createContext<(toast: Toast) => void>(() => {});

const DISMISS_AFTER_MS = 5000;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<ShownToast[]>([]);
  const nextId = useRef(1);

  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((t) => t.id !== id)), []);
  const show = useCallback(
    (toast: Toast) => {
      const id = nextId.current++;
      setToasts((all) => [...all.slice(-3), { ...toast, id }]);
      setTimeout(() => dismiss(id), DISMISS_AFTER_MS);
    },
    [dismiss],
  );

  return (
    <ToastContext.Provider value={show}>
      {children}
      <ol
        aria-live="polite"
        aria-label="Notifications"
        className="pointer-events-none fixed right-0 bottom-0 z-[100] flex w-full max-w-sm flex-col gap-2 p-4"
      >
        {toasts.map((toast) => (
          <li
            key={toast.id}
            role={toast.variant === "destructive" ? "alert" : "status"}
            className={`pointer-events-auto flex items-start gap-3 rounded-lg border p-4 shadow-xl ${
              toast.variant === "destructive"
                ? "border-red-500/50 bg-red-950 text-red-50"
                : "border-line bg-panel-2 text-zinc-100"
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
          </li>
        ))}
      </ol>
    </ToastContext.Provider>
  );
}

export function useToast() {
  const show = useContext(ToastContext);
  return useMemo(() => ({ toast: show }), [show]);
}
