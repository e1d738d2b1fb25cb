// The Webhooks page's parts: the form that registers an endpoint (its secret shown once it is
// made), and each endpoint's card: its state, secret actions, and its delivery log with Redeliver.
import { useState } from "react";
import { useFetcher } from "react-router";
import { ConfirmedAction } from "~/components/confirmed-action";
import { copyText } from "~/components/copy";
import { AlertTriangle, Copy } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { useToast } from "~/components/toaster";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field, FieldError } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useResultToast } from "~/components/use-result-toast";
import type { Answer } from "~/lib/answer";
import { eventField, WEBHOOK_EVENT_LABELS, WEBHOOK_EVENTS, webhookActionSchema } from "~/lib/webhooks";

interface Attempt {
  id: number;
  at: number;
  status: number | null;
  response: string;
  error: string | null;
  requestHeaders: Record<string, string>;
}

interface Message {
  id: string;
  eventType: string;
  body: string;
  createdAt: number;
  state: "pending" | "delivered" | "failed";
  nextAttemptAt: number | null;
  attempts: Attempt[];
}

export interface EndpointView {
  id: string;
  url: string;
  description: string;
  events: string[];
  state: "enabled" | "disabled";
  disabledReason: "staff" | "failing" | null;
  disabledAt: number | null;
  failingSince: number | null;
  createdAt: number;
  rotatingUntil: number | null;
  messages: Message[];
}

/** A secret the action just answered with, and a button to copy it: shown until the page is left. */
function SecretBox({ secret, label }: { secret: string; label: string }) {
  const { toast } = useToast();
  return (
    <div className="space-y-2 rounded-lg border border-accent/40 bg-accent/5 p-3" role="status">
      <p className="text-xs font-bold tracking-wider text-accent">{label}</p>
      <div className="flex flex-wrap items-center gap-2">
        <code className="min-w-0 flex-1 text-sm break-all" aria-label="Signing secret">
          {secret}
        </code>
        <Button variant="outline" size="sm" onClick={() => void copyText(secret, toast, { title: "Secret copied" })}>
          <Copy className="size-4" aria-hidden /> Copy
        </Button>
      </div>
    </div>
  );
}

const secretOf = (data: Answer | undefined, intents: string[]) =>
  data?.ok && data.intent && intents.includes(data.intent) ? (data.value as { secret?: string } | undefined)?.secret : undefined;

export function NewEndpointCard() {
  const fetcher = useFetcher<Answer>();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, webhookActionSchema, { title: "Check the form" });
  const secret = secretOf(fetcher.data, ["create"]);
  return (
    <Card as="section" aria-labelledby="new-endpoint" className="space-y-4">
      <h2 id="new-endpoint" className="font-bold">
        Add an endpoint
      </h2>
      <fetcher.Form ref={formRef} method="post" onSubmit={onSubmit} className="space-y-4" noValidate>
        <input type="hidden" name="intent" value="create" />
        <input type="hidden" name="events" value="" />
        <div className="grid gap-4 md:grid-cols-2">
          <Field
            label="Endpoint URL"
            name="url"
            type="url"
            inputMode="url"
            placeholder="https://hooks.example.com/shop"
            hint="HTTPS, on a public address: private and local addresses are refused."
            autoComplete="off"
            required
            error={errors.url}
          />
          <Field label="Description (optional)" name="description" autoComplete="off" maxLength={200} error={errors.description} />
        </div>
        <fieldset className="space-y-2" aria-describedby={errors.events ? "events-error" : undefined}>
          <legend className="text-sm font-semibold">Events</legend>
          <div className="grid gap-2 sm:grid-cols-2 lg:grid-cols-3">
            {WEBHOOK_EVENTS.map((event) => (
              <label key={event} className="flex items-center gap-2 text-sm">
                <input type="checkbox" name={eventField(event)} value="on" className="size-4 accent-accent" />
                <span>
                  {WEBHOOK_EVENT_LABELS[event]} <span className="text-xs text-muted">{event}</span>
                </span>
              </label>
            ))}
          </div>
          <FieldError id="events" error={errors.events} />
        </fieldset>
        <Button type="submit" disabled={busy}>
          {busy ? "Adding..." : "Add endpoint"}
        </Button>
      </fetcher.Form>
      {secret ? <SecretBox secret={secret} label="THE NEW ENDPOINT'S SIGNING SECRET" /> : null}
    </Card>
  );
}

function StateBadge({ endpoint }: { endpoint: EndpointView }) {
  if (endpoint.state === "enabled")
    return endpoint.failingSince ? <Badge tone="yellow">Failing</Badge> : <Badge tone="green">Enabled</Badge>;
  return endpoint.disabledReason === "failing" ? <Badge tone="red">Disabled: failing</Badge> : <Badge tone="gray">Disabled</Badge>;
}

const MESSAGE_STATES = {
  pending: { label: "Retrying", tone: "yellow" },
  delivered: { label: "Delivered", tone: "green" },
  failed: { label: "Failed", tone: "red" },
} as const;

function DeliveryLog({ endpoint }: { endpoint: EndpointView }) {
  const redeliver = useFetcher<Answer>();
  useResultToast(redeliver);
  if (endpoint.messages.length === 0)
    return <p className="text-sm text-muted">No deliveries yet: send a test event to try the endpoint.</p>;
  return (
    <ul className="divide-y divide-line rounded-lg border border-line" aria-label={`Deliveries to ${endpoint.url}`}>
      {endpoint.messages.map((message) => {
        const [last] = message.attempts;
        const state = MESSAGE_STATES[message.state];
        const never = message.state === "pending" && message.attempts.length === 0;
        return (
          <li key={message.id} className="space-y-2 p-3 text-sm">
            <div className="flex flex-wrap items-center justify-between gap-2">
              <span className="flex flex-wrap items-center gap-2">
                <span className="font-semibold">{message.eventType}</span>
                <Badge tone={never ? "blue" : state.tone}>{never ? "Queued" : state.label}</Badge>
              </span>
              <redeliver.Form method="post">
                <input type="hidden" name="intent" value="redeliver" />
                <input type="hidden" name="endpointId" value={endpoint.id} />
                <input type="hidden" name="messageId" value={message.id} />
                <Button
                  type="submit"
                  variant="outline"
                  size="sm"
                  disabled={redeliver.state !== "idle" || message.state === "pending" || endpoint.state !== "enabled"}
                  aria-label={`Redeliver ${message.eventType} (${message.id})`}
                >
                  Redeliver
                </Button>
              </redeliver.Form>
            </div>
            <p className="break-all text-muted">
              {message.id} · <LocalTime ms={message.createdAt} format="datetime" /> · {message.attempts.length}{" "}
              {message.attempts.length === 1 ? "attempt" : "attempts"}
              {message.nextAttemptAt && message.state === "pending" ? (
                <>
                  {" "}
                  · next attempt <LocalTime ms={message.nextAttemptAt} format="datetime" />
                </>
              ) : null}
            </p>
            {last ? (
              <p className="break-all">
                Last answer: <span className="font-semibold">{last.status ?? "none"}</span>
                {last.error ? <span className="text-red-300"> · {last.error}</span> : null}
                {last.response ? <span className="text-muted"> · {last.response.slice(0, 200)}</span> : null}
              </p>
            ) : null}
            <details>
              <summary className="cursor-pointer text-accent">Request and attempts</summary>
              <div className="mt-2 space-y-2">
                <pre tabIndex={0} className="max-h-48 overflow-auto rounded bg-black/40 p-2 text-xs whitespace-pre-wrap">
                  {message.body}
                </pre>
                <ul className="space-y-1 text-xs text-muted">
                  {message.attempts.map((attempt) => (
                    <li key={attempt.id} className="break-all">
                      <LocalTime ms={attempt.at} format="datetime" />: {attempt.status ?? "no answer"}
                      {attempt.error ? ` (${attempt.error})` : ""} · webhook-timestamp {attempt.requestHeaders["webhook-timestamp"]}
                    </li>
                  ))}
                </ul>
              </div>
            </details>
          </li>
        );
      })}
    </ul>
  );
}

/** One fetcher for every card's Delete: its answer is toasted by the list, which outlives the deleted card. */
const DELETE_FETCHER = "webhook-endpoint-delete";

export function EndpointList({ endpoints }: { endpoints: EndpointView[] }) {
  useResultToast(useFetcher<Answer>({ key: DELETE_FETCHER }));
  if (endpoints.length === 0)
    return <p className="text-sm text-muted">No endpoints yet: add one above, and the shop starts sending it the events it chose.</p>;
  return (
    <ul className="space-y-6">
      {endpoints.map((endpoint) => (
        <li key={endpoint.id}>
          <EndpointCard endpoint={endpoint} />
        </li>
      ))}
    </ul>
  );
}

function EndpointCard({ endpoint }: { endpoint: EndpointView }) {
  const actions = useFetcher<Answer>();
  const remove = useFetcher<Answer>({ key: DELETE_FETCHER });
  useResultToast(actions);
  const [secretFor, setSecretFor] = useState<string | null>(null);
  const secret = secretOf(actions.data, ["reveal", "rotate"]);
  const send = (intent: "test" | "rotate" | "reveal" | "enable" | "disable") => {
    if (intent === "reveal" || intent === "rotate") setSecretFor(intent);
    void actions.submit({ intent, endpointId: endpoint.id }, { method: "post" });
  };
  const busy = actions.state !== "idle";
  return (
    <Card as="article" aria-labelledby={`endpoint-${endpoint.id}`} className="space-y-4">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0 space-y-1">
          <h3 id={`endpoint-${endpoint.id}`} className="font-bold break-all">
            {endpoint.url}
          </h3>
          {endpoint.description ? <p className="text-sm text-muted">{endpoint.description}</p> : null}
        </div>
        <StateBadge endpoint={endpoint} />
      </div>
      {endpoint.state === "disabled" && endpoint.disabledReason === "failing" ? (
        <p className="flex items-start gap-2 text-sm text-red-300" role="status">
          <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden />
          <span>
            Every delivery failed from <LocalTime ms={endpoint.failingSince ?? endpoint.disabledAt ?? 0} format="datetime" /> for a day, so
            the shop stopped sending to it
            {endpoint.disabledAt ? (
              <>
                {" "}
                on <LocalTime ms={endpoint.disabledAt} format="datetime" />
              </>
            ) : null}
            . Mend the endpoint, enable it, and redeliver what it missed.
          </span>
        </p>
      ) : endpoint.failingSince && endpoint.state === "enabled" ? (
        <p className="text-sm text-yellow-300">
          Failing since <LocalTime ms={endpoint.failingSince} format="datetime" />: a day of failures disables it.
        </p>
      ) : null}
      <p className="flex flex-wrap gap-1 text-xs" aria-label="Events">
        {endpoint.events.map((event) => (
          <Badge key={event} tone="blue">
            {event}
          </Badge>
        ))}
      </p>
      {endpoint.rotatingUntil ? (
        <p className="text-xs text-muted">
          The previous secret also signs until <LocalTime ms={endpoint.rotatingUntil} format="datetime" />.
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button variant="outline" size="sm" disabled={busy || endpoint.state !== "enabled"} onClick={() => send("test")}>
          Send test event
        </Button>
        <Button variant="outline" size="sm" disabled={busy} onClick={() => send("reveal")}>
          Reveal secret
        </Button>
        <Button variant="outline" size="sm" disabled={busy} onClick={() => send("rotate")}>
          Rotate secret
        </Button>
        {endpoint.state === "enabled" ? (
          <Button variant="outline" size="sm" disabled={busy} onClick={() => send("disable")}>
            Disable
          </Button>
        ) : (
          <Button variant="outline" size="sm" disabled={busy} onClick={() => send("enable")}>
            Enable
          </Button>
        )}
        <ConfirmedAction
          fetcher={remove}
          fields={{ intent: "delete", endpointId: endpoint.id }}
          title="Delete this endpoint?"
          cost={`${endpoint.url} will receive nothing more, and its delivery log is deleted with it.`}
          confirmLabel="Delete endpoint"
          busyLabel="Deleting..."
          trigger={(open) => (
            <Button variant="outline" size="sm" onClick={open}>
              Delete
            </Button>
          )}
        />
      </div>
      {secret && secretFor ? (
        <SecretBox secret={secret} label={secretFor === "rotate" ? "THE NEW SIGNING SECRET" : "THE SIGNING SECRET"} />
      ) : null}
      <div className="space-y-2">
        <h4 className="text-sm font-semibold">Delivery log</h4>
        <DeliveryLog endpoint={endpoint} />
      </div>
    </Card>
  );
}
