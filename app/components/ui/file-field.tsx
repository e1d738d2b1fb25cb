// A file picker that looks like the app's buttons: a real <input type="file"> (so the form also
// works without JavaScript), visually hidden but focusable, opened by its button-styled label; the
// chosen file's name is shown beside it.
import { type InputHTMLAttributes, useEffect, useId, useRef, useState } from "react";
import { Upload } from "../icons";
import { buttonClass } from "./button";
import { describedBy, FieldNotes } from "./field";

export function FileField({
  label,
  hint,
  error,
  className = "",
  onChange,
  ...props
}: Omit<InputHTMLAttributes<HTMLInputElement>, "type"> & { label: string; hint?: string; error?: string }) {
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [fileName, setFileName] = useState<string | null>(null);
  // Resetting the form (after an upload) empties the input; the name shown goes with it.
  useEffect(() => {
    const form = inputRef.current?.form;
    if (!form) return;
    const forget = () => setFileName(null);
    form.addEventListener("reset", forget);
    return () => form.removeEventListener("reset", forget);
  }, []);
  return (
    <div className={`space-y-1.5 ${className}`}>
      <p id={`${id}-label`} className="text-sm font-medium text-zinc-200">
        {label}
      </p>
      <div className="flex flex-wrap items-center gap-3">
        <input
          ref={inputRef}
          id={id}
          type="file"
          aria-labelledby={`${id}-label`}
          className="peer sr-only"
          {...describedBy(id, { hint, error })}
          onChange={(event) => {
            setFileName(event.target.files?.[0]?.name ?? null);
            onChange?.(event);
          }}
          {...props}
        />
        <label
          htmlFor={id}
          className={buttonClass(
            "outline",
            "md",
            "cursor-pointer peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-accent peer-aria-invalid:border-red-500",
          )}
        >
          <Upload className="size-4" aria-hidden /> Choose file
        </label>
        <span className={`min-w-0 flex-1 text-sm break-all ${fileName ? "text-zinc-100" : "text-muted"}`} aria-live="polite">
          {fileName ?? "No file chosen"}
        </span>
      </div>
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}
