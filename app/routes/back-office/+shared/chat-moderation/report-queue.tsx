// The reports queue: each reported message once, in the room it was said in, between the messages
// that came before and after it, with every open report of it and one-click actions (remove it,
// mute its author for an hour, dismiss; a ban asks first). Each answers with a toast; the queue
// reloads without the message once it is decided.
import { useFetcher } from "react-router";
import { ConfirmedAction } from "~/components/confirmed-action";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { useResultToast } from "~/components/use-result-toast";
import { MAX_REASON_LENGTH, type ReportedMessage } from "~/lib/chat";
import { counted } from "~/lib/format";
import { chatModerationSchema } from "~/lib/schemas/chat";

/** Why, as the audit log records a one-click decision: what the first member reported. */
const reasonOf = (item: ReportedMessage) => `Reported: ${item.reports[0]?.reason ?? "no reason"}`.slice(0, MAX_REASON_LENGTH);

function ReportActions({ item }: { item: ReportedMessage }) {
  const fetcher = useFetcher();
  useResultToast(fetcher);
  const busy = fetcher.state !== "idle";
  const report = String(item.reports[0]!.id);
  const reason = reasonOf(item);
  const oneClick = (intent: string, label: string, fields: Record<string, string>, variant: "danger" | "outline" = "outline") => (
    <fetcher.Form method="post" action="/dashboard/chat-moderation">
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="report" value={report} />
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <Button type="submit" size="sm" variant={variant} disabled={busy}>
        {label}
      </Button>
    </fetcher.Form>
  );
  return (
    <div className="flex flex-wrap gap-2">
      {oneClick("delete", "Remove message", { room: item.room, message: String(item.messageId), reason }, "danger")}
      {item.authorId ? oneClick("mute", "Mute 1 hour", { member: item.authorId, minutes: "60", reason }) : null}
      {item.authorId ? (
        <ConfirmedAction
          fetcher={fetcher}
          action="/dashboard/chat-moderation"
          fields={{ intent: "ban", member: item.authorId, report }}
          title={`Ban ${item.authorName} from the chat?`}
          cost="They can no longer open any chat room until a member of staff lifts the ban. Their account and keys are untouched."
          confirmLabel="Ban from chat"
          busyLabel="Banning..."
          schema={chatModerationSchema}
          problemTitle="Please check the form"
          trigger={(open) => (
            <Button size="sm" variant="outline" onClick={open} disabled={busy}>
              Ban from chat
            </Button>
          )}
        >
          {(errors) => <Field label="Reason" name="reason" defaultValue={reason} error={errors.reason} data-autofocus autoComplete="off" />}
        </ConfirmedAction>
      ) : null}
      {oneClick("dismiss", "Dismiss", {})}
    </div>
  );
}

export function ReportQueue({ reports }: { reports: ReportedMessage[] }) {
  return (
    <Card as="section" aria-labelledby="chat-reports">
      <h2 id="chat-reports" className="flex items-center gap-2 text-xl font-bold">
        Reports {reports.length > 0 ? <Badge tone="orange">{reports.length}</Badge> : null}
      </h2>
      {reports.length === 0 ? (
        <p className="mt-3 text-sm text-muted">No open reports. Members report a message from the chat, and it waits here for you.</p>
      ) : (
        <ul aria-label="Reported messages" className="mt-4 space-y-4">
          {reports.map((item) => {
            const before = item.context.filter((line) => line.id < item.messageId);
            const after = item.context.filter((line) => line.id > item.messageId);
            return (
              <li key={`${item.room}:${item.messageId}`} className="rounded-lg border border-line bg-panel-2 p-4 text-sm">
                <p className="text-xs text-muted">
                  In {item.roomName} · {counted(item.reports.length, "report")}
                </p>
                <ol aria-label="The message and what came around it" className="mt-2 space-y-1">
                  {before.map((line) => (
                    <ContextLine key={line.id} line={line} />
                  ))}
                  <li className="rounded-md border border-red-500/40 bg-red-500/10 p-2">
                    <p className="flex flex-wrap items-baseline gap-2">
                      <span className="font-semibold">{item.authorName}</span>
                      <LocalTime ms={item.messageAt} format="datetime" className="text-xs text-muted" />
                      <Badge tone="red">Reported</Badge>
                    </p>
                    <p className="mt-1 whitespace-pre-wrap wrap-anywhere">{item.content}</p>
                  </li>
                  {after.map((line) => (
                    <ContextLine key={line.id} line={line} />
                  ))}
                </ol>
                <ul aria-label="Why members reported it" className="mt-3 space-y-1">
                  {item.reports.map((report) => (
                    <li key={report.id}>
                      <span className="font-medium">{report.reporter ?? "A former member"}</span>: {report.reason}{" "}
                      <LocalTime ms={report.createdAt} format="datetime" className="text-xs text-muted" />
                    </li>
                  ))}
                </ul>
                <div className="mt-3">
                  <ReportActions item={item} />
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </Card>
  );
}

function ContextLine({ line }: { line: ReportedMessage["context"][number] }) {
  return (
    <li className="px-2 text-muted">
      <span className="font-medium text-zinc-300">{line.username}</span>{" "}
      <span className="whitespace-pre-wrap wrap-anywhere">{line.content || "(removed by staff)"}</span>
    </li>
  );
}
