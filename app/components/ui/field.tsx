// A labelled input. The label is always tied to its control for screen readers; a field's error
// is shown under it and announced with it (aria-invalid, aria-describedby).
import { type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes, useId } from "react";
import { inputClass } from "./input-class";

/** The ids and attributes that tie a control to its hint and error. */
export function describedBy(id: string, { hint, error }: { hint?: string; error?: string }) {
  const ids = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return { "aria-describedby": ids || undefined, "aria-invalid": error ? true : undefined };
}

export function FieldError({ id, error }: { id: string; error?: string }) {
  return error ? (
    <p id={`${id}-error`} className="text-xs text-red-400">
      {error}
    </p>
  ) : null;
}

export function Field({
  label,
  hint,
  error,
  className = "",
  ...props
}: InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: string; error?: string }) {
  const id = useId();
  return (
    <Labelled id={id} label={label} hint={hint} error={error} className={className}>
      <input id={id} className={inputClass} {...describedBy(id, { hint, error })} {...props} />
    </Labelled>
  );
}

/** A labelled multi-line text box (`monospace` for source such as Markdown). */
export function TextAreaField({
  label,
  hint,
  error,
  monospace = false,
  className = "",
  ...props
}: TextareaHTMLAttributes<HTMLTextAreaElement> & { label: string; hint?: string; error?: string; monospace?: boolean }) {
  const id = useId();
  return (
    <Labelled id={id} label={label} hint={hint} error={error} className={className}>
      <textarea
        id={id}
        className={`w-full rounded-md border border-line bg-panel-2 p-3 text-sm text-zinc-100 focus:border-accent focus:outline-none aria-invalid:border-red-500 ${monospace ? "font-mono" : ""}`}
        {...describedBy(id, { hint, error })}
        {...props}
      />
    </Labelled>
  );
}

/** A control with its label above and its hint and error below. */
function Labelled({
  id,
  label,
  hint,
  error,
  className,
  children,
}: {
  id: string;
  label: string;
  hint?: string;
  error?: string;
  className: string;
  children: ReactNode;
}) {
  return (
    <div className={`space-y-1.5 ${className}`}>
      <label htmlFor={id} className="block text-sm font-medium text-zinc-200">
        {label}
      </label>
      {children}
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

/** A field's hint and error under it, with the ids `describedBy` points at. */
export function FieldNotes({ id, hint, error }: { id: string; hint?: string; error?: string }) {
  return (
    <>
      {hint ? (
        <p id={`${id}-hint`} className="text-xs text-muted">
          {hint}
        </p>
      ) : null}
      <FieldError id={id} error={error} />
    </>
  );
}

/** A labelled select; `placeholder` is a first, unselectable empty choice ("Choose a variant..."). */
export function SelectField({
  label,
  name,
  options,
  defaultValue = "",
  placeholder,
  error,
  required,
  className = "",
}: {
  label: string;
  name: string;
  options: { value: string; label: string }[];
  defaultValue?: string;
  placeholder?: string;
  error?: string;
  required?: boolean;
  className?: string;
}) {
  const id = useId();
  return (
    <Labelled id={id} label={label} error={error} className={className}>
      <select id={id} name={name} defaultValue={defaultValue} required={required} className={inputClass} {...describedBy(id, { error })}>
        {placeholder ? (
          <option value="" disabled>
            {placeholder}
          </option>
        ) : null}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </Labelled>
  );
}
