// The chat's two dialogs, one of each per room, opened on a message: a member's report (with a
// reason, to the room's page), and a moderator's menu (remove the message, remove the author's last
// hour, mute them for a chosen time, ban them from the chat; always with a reason, for the audit
// log). Both are checked with the server's schemas before they are sent, and close once done.
import { useEffect, useId, useState } from "react";
import { useFetcher } from "react-router";
import { Button } from "~/components/ui/button";
import { Dialog } from "~/components/ui/dialog";
import { Field, SelectField } from "~/components/ui/field";
import { useFormCheck } from "~/components/use-form-check";
import { useResultToast } from "~/components/use-result-toast";
import type { Answer } from "~/lib/answer";
import { type ChatMessage, MUTE_CHOICES } from "~/lib/chat";
import { chatModerationSchema, reportMessageSchema } from "~/lib/schemas/chat";

/** A fetcher form in a dialog: its answer toasted, its fields checked, the dialog closed after a success. */
function useDialogForm(schema: typeof reportMessageSchema | typeof chatModerationSchema, onDone: () => void) {
  const fetcher = useFetcher<Answer>();
  useResultToast(fetcher, onDone);
  const check = useFormCheck(schema, { title: "Please check the form", answer: fetcher.data });
  return { fetcher, check, busy: fetcher.state !== "idle" };
}

export function ReportDialog({ room, message, onClose }: { room: string; message: ChatMessage | null; onClose: () => void }) {
  const { fetcher, check, busy } = useDialogForm(reportMessageSchema, onClose);
  return (
    <Dialog
      open={message !== null}
      onClose={onClose}
      title={`Report ${message?.username ?? "this"}'s message`}
      description="Staff see the message, what came around it and your reason. The author is not told who reported it."
    >
      {message ? (
        <fetcher.Form method="post" action={`/dashboard/chat/${room}`} onSubmit={check.onSubmit} noValidate className="space-y-4">
          <input type="hidden" name="intent" value="report" />
          <input type="hidden" name="message" value={message.id} />
          <blockquote className="rounded-md border border-line bg-panel-2 p-3 text-sm whitespace-pre-wrap wrap-anywhere">
            {message.content}
          </blockquote>
          <Field label="What is wrong with it?" name="reason" autoComplete="off" error={check.errors.reason} data-autofocus />
          <div className="flex flex-wrap justify-end gap-2">
            <Button variant="ghost" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={busy}>
              {busy ? "Sending..." : "Send report"}
            </Button>
          </div>
        </fetcher.Form>
      ) : null}
    </Dialog>
  );
}

const ACTIONS = [
  { intent: "delete", label: "Remove this message", detail: "Everyone sees “removed by staff” where it was." },
  { intent: "purge", label: "Remove their last hour", detail: "Everything they wrote in the last hour, in every room." },
  { intent: "mute", label: "Mute them", detail: "They read the chat but cannot post until the mute ends." },
  { intent: "ban", label: "Ban them from the chat", detail: "They can no longer open the chat. Their account and keys stay." },
] as const;

type Action = (typeof ACTIONS)[number]["intent"];

const DONE_LABEL: Record<Action, [string, string]> = {
  delete: ["Remove message", "Removing..."],
  purge: ["Remove last hour", "Removing..."],
  mute: ["Mute", "Muting..."],
  ban: ["Ban from chat", "Banning..."],
};

export function ModerateDialog({ room, message, onClose }: { room: string; message: ChatMessage | null; onClose: () => void }) {
  const { fetcher, check, busy } = useDialogForm(chatModerationSchema, onClose);
  const [action, setAction] = useState<Action>("delete");
  const id = useId();
  useEffect(() => {
    if (message) setAction("delete");
  }, [message]);
  const [label, busyLabel] = DONE_LABEL[action];
  return (
    <Dialog open={message !== null} onClose={onClose} title={`Moderate ${message?.username ?? "a member"}'s message`}>
      {message ? (
        <fetcher.Form method="post" action="/dashboard/chat-moderation" onSubmit={check.onSubmit} noValidate className="space-y-4">
          <input type="hidden" name="room" value={room} />
          <input type="hidden" name="message" value={message.id} />
          <input type="hidden" name="member" value={message.userId} />
          <input type="hidden" name="report" value="" />
          <blockquote className="rounded-md border border-line bg-panel-2 p-3 text-sm whitespace-pre-wrap wrap-anywhere">
            {message.content}
          </blockquote>
          <fieldset className="space-y-2">
            <legend className="text-sm font-medium text-zinc-200">What to do</legend>
            {ACTIONS.map((option) => (
              <label
                key={option.intent}
                className="flex items-start gap-3 rounded-md border border-line p-2 text-sm has-checked:border-accent"
              >
                <input
                  type="radio"
                  name="intent"
                  value={option.intent}
                  checked={action === option.intent}
                  onChange={() => setAction(option.intent)}
                  className="mt-1 accent-accent"
                  aria-describedby={`${id}-${option.intent}`}
                />
                <span>
                  <span className="font-medium">{option.label}</span>
                  <span id={`${id}-${option.intent}`} className="block text-xs text-muted">
                    {option.detail}
                  </span>
                </span>
              </label>
            ))}
          </fieldset>
          {action === "mute" ? (
            <SelectField
              label="For how long"
              name="minutes"
              defaultValue={String(MUTE_CHOICES[0].minutes)}
              options={MUTE_CHOICES.map((choice) => ({ value: String(choice.minutes), label: choice.label }))}
              error={check.errors.minutes}
            />
          ) : null}
          <Field label="Reason" name="reason" autoComplete="off" hint="Kept in the audit log." error={check.errors.reason} data-autofocus />
          <div className="flex flex-wrap justify-end gap-2">
            <Button variant="ghost" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" variant={action === "mute" ? "primary" : "danger"} disabled={busy}>
              {busy ? busyLabel : label}
            </Button>
          </div>
        </fetcher.Form>
      ) : null}
    </Dialog>
  );
}
