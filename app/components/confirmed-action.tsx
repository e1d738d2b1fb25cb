// A destructive action behind a confirmation: the trigger opens a modal dialog that says what the
// action costs, and only its confirm button sends the form (through the caller's fetcher, whose
// answer the caller toasts). Extra inputs (a reason) live inside the dialog, checked with the same
// schema as on the server. Cancel has the focus on opening; Escape or Cancel closes it, and the
// dialog closes by itself once the action succeeded.
import { type ReactNode, useEffect, useState } from "react";
import type { FetcherWithComponents } from "react-router";
import * as v from "valibot";
import type { Answer } from "~/lib/answer";
import type { Problem } from "~/lib/result";
import { Button, type ButtonVariant } from "./ui/button";
import { Dialog } from "./ui/dialog";
import { useFormCheck } from "./use-form-check";

export function ConfirmedAction({
  fetcher,
  action,
  fields,
  title,
  cost,
  confirmLabel,
  busyLabel,
  variant = "danger",
  trigger,
  schema,
  problemTitle = "Error",
  children,
}: {
  fetcher: FetcherWithComponents<unknown>;
  action?: string;
  fields: Record<string, string>;
  title: string;
  /** What the action costs, in the reader's words: what stops, what cannot be undone. */
  cost: ReactNode;
  confirmLabel: string;
  busyLabel: string;
  variant?: ButtonVariant;
  /** The button (or link) that opens the dialog. */
  trigger: (open: () => void) => ReactNode;
  /** The schema the form's inputs are checked with in the browser (when it has inputs). */
  schema?: v.GenericSchema;
  problemTitle?: string | ((problem: Problem) => string);
  children?: (errors: Record<string, string | undefined>) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  // The answer the fetcher held when the dialog opened is an earlier round's: not this one's to show.
  const [before, setBefore] = useState<unknown>(undefined);
  const answer = fetcher.data === before ? undefined : (fetcher.data as Answer | undefined);
  // Only the answer to this form's intent is this dialog's to show.
  const mine = answer && (answer.intent === undefined || answer.intent === fields.intent) ? answer : null;
  const check = useFormCheck(schema ?? ANYTHING, { title: problemTitle, answer: open ? mine : null });
  const busy = fetcher.state !== "idle";
  const done = fetcher.state === "idle" && mine?.ok === true;
  useEffect(() => {
    if (done) setOpen(false);
  }, [done]);
  const close = () => {
    setOpen(false);
    check.clear();
  };
  return (
    <>
      {trigger(() => {
        setBefore(fetcher.data);
        setOpen(true);
      })}
      <Dialog open={open} onClose={close} title={title} description={cost}>
        <fetcher.Form method="post" action={action} onSubmit={schema ? check.onSubmit : undefined} noValidate className="space-y-4">
          {Object.entries(fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          {children?.(check.errors)}
          <div className="flex flex-wrap justify-end gap-2">
            {/* With inputs, the caller marks the first one data-autofocus; without, Cancel takes the focus. */}
            <Button variant="ghost" onClick={close} data-autofocus={children ? undefined : true}>
              Cancel
            </Button>
            <Button type="submit" variant={variant} disabled={busy}>
              {busy ? busyLabel : confirmLabel}
            </Button>
          </div>
        </fetcher.Form>
      </Dialog>
    </>
  );
}

// A form without inputs of its own passes the browser's check; the server checks it anyway.
const ANYTHING = v.unknown();
