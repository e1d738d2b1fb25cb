// A modal dialog on the native <dialog> element: focus is kept inside, Escape closes it, and
// focus returns to whatever opened it. On opening, focus goes to the element marked
// `data-autofocus` (a confirmation's Cancel, say), else the browser's first focusable one.
import { type ReactNode, useEffect, useId, useRef } from "react";
import { X } from "../icons";
import { useToastHost } from "../toaster";

export function Dialog({
  open,
  onClose,
  title,
  description,
  children,
  className = "",
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  description?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const toastHost = useToastHost();
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      dialog.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onClose={onClose}
      onClick={(event) => event.target === ref.current && onClose()}
      className={`m-auto w-[calc(100%-2rem)] max-w-lg rounded-xl border border-line bg-panel p-0 text-zinc-100 shadow-2xl backdrop:bg-black/70 ${className}`}
    >
      {open ? (
        <div className="p-6">
          <div className="flex items-start justify-between gap-4">
            <h2 id={titleId} className="text-lg font-bold">
              {title}
            </h2>
            <button type="button" onClick={onClose} className="rounded p-1 text-muted hover:text-white" aria-label="Close">
              <X className="size-5" aria-hidden />
            </button>
          </div>
          {description ? <div className="mt-1 text-sm text-muted">{description}</div> : null}
          <div className="mt-4">{children}</div>
          {/* The page's toasts show here while the dialog is open: the rest of the page is inert behind it. */}
          <div ref={toastHost} className="-mx-5 has-[li]:mt-4 has-[li]:-mb-3" />
        </div>
      ) : null}
    </dialog>
  );
}
