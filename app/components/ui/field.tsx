// A labelled input. The label is always tied to its control for screen readers.
import { type InputHTMLAttributes, useId } from "react";

export const inputClass =
  "h-10 w-full rounded-md border border-line bg-panel-2 px-3 text-sm text-zinc-100 placeholder:text-zinc-500 focus:border-accent focus:outline-none disabled:opacity-50";

export function Field({
  label,
  hint,
  className = "",
  ...props
}: InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: string }) {
  const id = useId();
  return (
    <div className={`space-y-1.5 ${className}`}>
      <label htmlFor={id} className="block text-sm font-medium text-zinc-200">
        {label}
      </label>
      <input id={id} className={inputClass} aria-describedby={hint ? `${id}-hint` : undefined} {...props} />
      {hint ? (
        <p id={`${id}-hint`} className="text-xs text-muted">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
