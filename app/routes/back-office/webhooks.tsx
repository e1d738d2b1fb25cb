// /dashboard/webhooks: admins only (capability webhooks.manage). Endpoints the shop signs and
// sends events to (Standard Webhooks, decisions 101 and 102), their secrets, and each one's
// delivery log with Redeliver and Send test event. Every change is audited.
import { Webhook } from "~/components/icons";
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { callerOf } from "~/http/caller.server";
import { app } from "~/http/context.server";
import { requireCapability } from "~/http/guards.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { webhookActionSchema } from "~/lib/webhooks";
import {
  deleteEndpoint,
  redeliverMessage,
  registerEndpoint,
  revealSecret,
  rotateSecret,
  sendTestEvent,
  setEndpointEnabled,
  webhookOverview,
} from "~/server/webhooks/endpoints.server";
import { EndpointList, NewEndpointCard } from "./+shared/webhook-cards";
import type { Route } from "./+types/webhooks";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("webhooks.manage")];

export const meta: Route.MetaFunction = () => [{ title: `Webhooks | ${BRAND}` }];

export async function loader({ context }: Route.LoaderArgs) {
  return { endpoints: await webhookOverview(app(context).db) };
}

const titles: ProblemTitles = { invalid: "Check the form", conflict: "Nothing changed", "not-found": "Nothing changed" };

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "webhooks", webhookActionSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const { value: form, viewer } = submission;
  const { db } = app(context);
  const actor = { id: viewer.id, ip: callerOf(request).ip };
  const options = { titles, intent: form.intent };
  switch (form.intent) {
    case "create":
      return answer(await registerEndpoint(db, actor, form), {
        ...options,
        success: { title: "Endpoint added", description: "Copy its signing secret now: receivers verify every delivery with it." },
      });
    case "rotate":
      return answer(await rotateSecret(db, actor, form.endpointId), {
        ...options,
        success: {
          title: "Secret rotated",
          description: "Deliveries carry both signatures for a day: switch the receiver to the new secret.",
        },
      });
    case "reveal":
      return answer(await revealSecret(db, actor, form.endpointId), {
        ...options,
        success: { title: "Secret shown", description: "Revealing it is in the audit log." },
      });
    case "disable":
    case "enable":
      return answer(await setEndpointEnabled(db, actor, form.endpointId, form.intent === "enable"), {
        ...options,
        success:
          form.intent === "enable"
            ? { title: "Endpoint enabled", description: "New events are sent to it again; redeliver what it missed." }
            : { title: "Endpoint disabled", description: "Nothing is sent to it until it is enabled again." },
      });
    case "delete":
      return answer(await deleteEndpoint(db, actor, form.endpointId), {
        ...options,
        success: { title: "Endpoint deleted", description: "It receives nothing more, and its delivery log is gone." },
      });
    case "test":
      return answer(await sendTestEvent(db, actor, form.endpointId), {
        ...options,
        success: { title: "Test event sent", description: "It is on its way: its delivery shows in the log in a moment." },
      });
    case "redeliver":
      return answer(await redeliverMessage(db, actor, form.endpointId, form.messageId), {
        ...options,
        success: { title: "Sent again", description: "The same message, with the same webhook-id, is on its way." },
      });
  }
}

export default function Webhooks({ loaderData }: Route.ComponentProps) {
  const { endpoints } = loaderData;
  return (
    <div className="space-y-8">
      <div className="space-y-1">
        <h1 className="flex items-center gap-3 text-3xl font-black tracking-tight">
          WEBHOOKS <Webhook className="size-6 text-accent" aria-hidden />
        </h1>
        <p className="text-sm text-muted">
          The shop tells your own systems what happens (orders, licences, disputes, reviews), signed as Standard Webhooks describes, retried
          for about a day. See the webhooks guide for verifying them.
        </p>
      </div>
      <NewEndpointCard />
      <section aria-labelledby="endpoints-heading" className="space-y-4">
        <h2 id="endpoints-heading" className="text-xl font-bold">
          Endpoints
        </h2>
        <EndpointList endpoints={endpoints} />
      </section>
    </div>
  );
}
