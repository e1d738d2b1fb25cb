// /dashboard/replacements: members' requests for a replacement of a key banned in game, with the
// licence's state, checks and history; staff approve (a new key on the shop's one key path) or
// decline, with a reason the member is e-mailed. Capability replacements.decide.
import { useFetcher } from "react-router";
import { LocalTime } from "~/components/local-time";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import { Field } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { answer, answerInvalid } from "~/http/answer.server";
import { app, mailingDeps } from "~/http/context.server";
import { requireCapability } from "~/http/guards.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { maskKey } from "~/lib/licences";
import { replacementDecisionSchema } from "~/lib/schemas/replacements";
import { clientAddress } from "~/http/caller.server";
import { decideReplacement, replacementQueue } from "~/server/replacements/replacement-decisions.server";
import type { Route } from "./+types/replacements";
import { counted } from "~/lib/format";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("replacements.decide")];

export const meta: Route.MetaFunction = () => [{ title: `Replacements | ${BRAND}` }];

export async function loader({ context }: Route.LoaderArgs) {
  const requests = await replacementQueue(app(context).db);
  // The whole key stays on the server; staff recognise it by its ends.
  return { requests: requests.map(({ key, ...request }) => ({ ...request, key: maskKey(key) })) };
}

const NOT_DECIDED = "Not decided";

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "replacement", replacementDecisionSchema);
  if (!submission.ok) return answerInvalid(submission, { titles: { invalid: NOT_DECIDED } });
  const actor = { viewer: submission.viewer, ip: clientAddress(request) };
  return answer(await decideReplacement(mailingDeps(context), actor, submission.value), {
    intent: submission.value.intent,
    titles: { conflict: NOT_DECIDED, "not-found": NOT_DECIDED },
    success: ({ state }) =>
      state === "approved"
        ? { title: "Approved", description: "The new key was e-mailed to the member." }
        : { title: "Declined", description: "The member was e-mailed the reason." },
  });
}

type Request = Route.ComponentProps["loaderData"]["requests"][number];
const TONE: Record<string, BadgeTone> = { pending: "yellow", approved: "green", declined: "gray" };

function Decide({ request }: { request: Request }) {
  const fetcher = useFetcher();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, replacementDecisionSchema, { title: NOT_DECIDED });
  return (
    <fetcher.Form ref={formRef} method="post" onSubmit={onSubmit} className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-end">
      <input type="hidden" name="requestId" value={request.id} />
      <Field label="Reason (sent to the member)" name="reason" required maxLength={500} className="flex-1" error={errors.reason} />
      <div className="flex gap-2">
        <Button type="submit" name="intent" value="approve" disabled={busy}>
          Approve
        </Button>
        <Button type="submit" name="intent" value="decline" variant="outline" disabled={busy}>
          Decline
        </Button>
      </div>
    </fetcher.Form>
  );
}

function RequestCard({ request }: { request: Request }) {
  return (
    <Card>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-mono text-sm">{request.key}</span>
        <Badge tone={TONE[request.state]}>{request.state}</Badge>
        <span className="text-sm text-muted">
          {request.product} · {request.plan} · licence {request.licenceState}
        </span>
      </div>
      <dl className="mt-2 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
        <div>
          <dt className="inline text-muted">Owner: </dt>
          <dd className="inline break-all">{request.ownerEmail}</dd>
        </div>
        <div>
          <dt className="inline text-muted">Asked: </dt>
          <dd className="inline">
            <LocalTime ms={request.createdAt} format="datetime" />
          </dd>
        </div>
        <div>
          <dt className="inline text-muted">Activated: </dt>
          <dd className="inline">{request.activatedAt ? <LocalTime ms={request.activatedAt} format="datetime" /> : "Never"}</dd>
        </div>
        <div>
          <dt className="inline text-muted">Last check: </dt>
          <dd className="inline">
            {request.lastCheckAt ? <LocalTime ms={request.lastCheckAt} format="datetime" /> : "Never"}
            {request.lastCheckPlace ? ` · ${request.lastCheckPlace}` : ""} · {counted(request.resets, "PC reset")}
          </dd>
        </div>
      </dl>
      <p className="mt-2 text-sm break-words whitespace-pre-line">{request.description}</p>
      {request.reason ? <p className="mt-1 text-sm text-muted">Reason given: {request.reason}</p> : null}
      {request.state === "pending" ? <Decide request={request} /> : null}
    </Card>
  );
}

export default function Replacements({ loaderData }: Route.ComponentProps) {
  const { requests } = loaderData;
  return (
    <div className="space-y-6">
      <h1 className="text-3xl font-black">Replacements</h1>
      <p className="text-sm text-muted">
        Keys banned in game within 48 hours of activation, once per key. Approving revokes the key and e-mails a new one of the same plan.
      </p>
      {requests.length === 0 ? (
        <EmptyState className="text-center" title="No requests">
          Members ask from their subscription card.
        </EmptyState>
      ) : (
        <div className="space-y-3">
          {requests.map((request) => (
            <RequestCard key={request.id} request={request} />
          ))}
        </div>
      )}
    </div>
  );
}
