// /dashboard/orders/:source/:reference: one order of any source — header, lines, keys (masked; a
// "Reveal" shows one key to the one person who asked, audited), crypto evidence, and a timeline of
// everything that happened to it. Each action's intent has its own capability (app/lib/staff-actions.ts):
// support may reveal and resend; revoking, replacing and cancelling are for admins.
import { useFetcher } from "react-router";
import { Link } from "~/components/link";
import { CryptoEvidence, Detail, Section, Timeline } from "./+shared/order/order-details";
import { CancelOrderButton, KEY_CHANGE, keyColumns, ResendButton, UndeliveredNotice } from "./+shared/order/order-keys";
import { orderTotal, OrderStateBadge } from "./+shared/order-state";
import { ShieldCheck } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { useResultToast } from "~/components/use-result-toast";
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { app, mailingDeps } from "~/http/context.server";
import { currentViewer, requireCapability } from "~/http/guards.server";
import { notFound } from "~/http/refusals.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { formatMoney } from "~/lib/plans";
import { ORDER_SOURCES, ORDERS_PATH, type OrderSource, SOURCE_LABEL } from "~/lib/orders";
import { can } from "~/lib/roles";
import { orderActionSchema } from "~/lib/schemas/orders";
import { cancelOrderFromPage, correctBuyerEmail, replaceKey, resendKeys, revealKey, revokeKey } from "~/server/orders/order-actions.server";
import { orderDetail } from "~/server/orders/order-page.server";
import { findOrder } from "~/server/orders/order-list.server";
import { releaseOrder } from "~/server/orders/shopify-consumer.server";
import { queueSyncForOrder } from "~/server/discord/role-sync.server";
import { clientAddress } from "~/http/caller.server";
import type { Route } from "./+types/order";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("orders.view")];

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: `${loaderData ? `Order ${loaderData.order.number}` : "Order"} | ${BRAND}` },
];

const sourceOf = (value: string): OrderSource => {
  if (!(ORDER_SOURCES as readonly string[]).includes(value)) throw notFound();
  return value as OrderSource;
};

export async function loader({ params, context }: Route.LoaderArgs) {
  const detail = await orderDetail(app(context).db, sourceOf(params.source), params.reference);
  if (!detail.ok) throw notFound();
  const role = currentViewer(context).role;
  return { ...detail.value, canResend: can(role, "orders.resend"), canManage: can(role, "orders.manage") };
}

const titles: ProblemTitles = {
  invalid: (p) => (p.field === "reason" ? "Reason required" : "Error"),
  "not-found": "Key not found",
  conflict: "Nothing changed",
};

export async function action({ request, params, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "order", orderActionSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const { value: form, viewer } = submission;
  const deps = mailingDeps(context);
  const order = await findOrder(deps.db, sourceOf(params.source), params.reference);
  if (!order) throw notFound();
  const actor = { viewer, ip: clientAddress(request) };
  const intent = form.intent;
  switch (form.intent) {
    case "reveal":
      return answer(await revealKey(deps.db, actor, order, form.key), {
        intent,
        titles,
        success: { title: "Key revealed", description: "The reveal was recorded in the audit log" },
      });
    case "resend":
      return answer(await resendKeys(deps, actor, order), {
        intent,
        titles,
        success: ({ count }) => ({ title: "E-mail sent", description: `${count} key(s) sent again to ${order.email}` }),
      });
    case "correct-email":
      return answer(await correctBuyerEmail(deps, actor, order, form.email), {
        intent,
        titles: { ...titles, conflict: "Not corrected", invalid: "Address" },
        success: ({ count }) =>
          count > 0
            ? { title: "Address corrected", description: `${count} key(s) sent to ${form.email}` }
            : {
                title: "Address corrected",
                description: `The order now names ${form.email}; no key could be sent just now (see the timeline)`,
              },
      });
    case "revoke":
      return answer(await revokeKey(deps, actor, order, form.key, form.reason), {
        intent,
        titles,
        success: ({ variantTitle }) => ({
          title: "Key revoked",
          description: `The ${variantTitle} key stopped working; the buyer was told why`,
        }),
      });
    case "replace":
      return answer(await replaceKey(deps, actor, order, form.key, form.reason), {
        intent,
        titles: { ...titles, conflict: "Not replaced" },
        success: ({ variantTitle }) => ({ title: "Key replaced", description: `A new ${variantTitle} key was e-mailed to ${order.email}` }),
      });
    case "release": {
      if (order.source !== "shopify") throw notFound();
      const released = await releaseOrder(deps, actor, order.reference);
      // The keys' owners' Discord roles follow now, as after any paid order.
      if (released.ok) await queueSyncForOrder({ db: deps.db, queue: app(context).env.JOB_QUEUE }, order.reference);
      return answer(released, {
        intent,
        titles: { ...titles, conflict: "Not released" },
        success: ({ assigned }) => ({
          title: "Order released",
          description: `${assigned} key(s) handed out and e-mailed to ${order.email}`,
        }),
      });
    }
    case "cancel":
      return answer(await cancelOrderFromPage(deps.db, actor, order, form), {
        intent,
        titles,
        success: { title: "Order cancelled", description: `Order ${order.number} was cancelled` },
      });
  }
}

/** The order's risk reasons and, while it is held for review, the admin's way to release it. */
function RiskCard({ risk, canRelease }: { risk: NonNullable<Route.ComponentProps["loaderData"]["risk"]>; canRelease: boolean }) {
  const fetcher = useFetcher<typeof action>({ key: KEY_CHANGE });
  const held = risk.heldAt !== null && risk.releasedAt === null;
  return (
    <Card className={held ? "border-orange-500/60" : ""}>
      <h2 className="font-bold">{held ? "Held for review" : "Risk"}</h2>
      {held ? (
        <p className="mt-1 text-sm text-muted">
          No key was handed out. Release it to hand out and e-mail its keys, or refund it in Shopify (the refund closes it here).
        </p>
      ) : risk.releasedAt ? (
        <p className="mt-1 text-sm text-muted">
          Released <LocalTime ms={risk.releasedAt} format="datetime" />.
        </p>
      ) : null}
      <ul className="mt-2 list-disc pl-5 text-sm">
        {risk.reasons.map((r) => (
          <li key={r.code}>{r.label}</li>
        ))}
      </ul>
      {risk.country ? <p className="mt-1 text-xs text-muted">Paid from {risk.country}</p> : null}
      {held && canRelease ? (
        <fetcher.Form method="post" className="mt-3">
          <button type="submit" name="intent" value="release" disabled={fetcher.state !== "idle"} className={buttonClass("primary", "sm")}>
            {fetcher.state !== "idle" ? "Releasing..." : "Release order"}
          </button>
        </fetcher.Form>
      ) : null}
    </Card>
  );
}

export default function OrderPage({ loaderData }: Route.ComponentProps) {
  const { order, lines, crypto, reason, keys, timeline, cancellable, undelivered, canResend, canManage, risk } = loaderData;
  useResultToast(useFetcher<typeof action>({ key: KEY_CHANGE }));
  return (
    <div className="space-y-8">
      <Link to={ORDERS_PATH} className="text-sm text-muted hover:text-white">
        ← All orders
      </Link>
      <h1 className="flex flex-wrap items-center gap-3 text-3xl font-black tracking-tight">
        {`Order ${order.number}`} <ShieldCheck className="size-6 text-accent" aria-label="Staff" />
      </h1>
      <Card>
        <dl className="grid gap-4 text-sm sm:grid-cols-2 lg:grid-cols-4">
          <Detail label="Source">
            <Badge tone="blue">{SOURCE_LABEL[order.source]}</Badge>
          </Detail>
          <Detail label="State">
            <OrderStateBadge state={order.state} />
          </Detail>
          <Detail label="E-mail">
            {order.email ? (
              <Link to={`/dashboard/customers?q=${encodeURIComponent(order.email)}`} className="text-accent-soft hover:underline">
                {order.email}
              </Link>
            ) : (
              "—"
            )}
          </Detail>
          <Detail label="Total">{orderTotal(order)}</Detail>
          <Detail label="Method">{order.method}</Detail>
          <Detail label="Placed">
            <LocalTime ms={order.createdAt} format="datetime" />
          </Detail>
          <Detail label="Reference">
            <span className="font-mono">{order.reference}</span>
          </Detail>
          {reason ? <Detail label="Reason">{reason}</Detail> : null}
        </dl>
      </Card>
      {risk && (risk.reasons.length > 0 || risk.heldAt) ? <RiskCard risk={risk} canRelease={canManage} /> : null}
      {undelivered ? <UndeliveredNotice mail={undelivered} canCorrect={canResend && order.source === "shopify"} /> : null}
      <Section title="Lines" empty={lines.length === 0 && !crypto ? "No lines recorded." : null}>
        <ul className="mt-2 divide-y divide-line text-sm">
          {lines.map((line, i) => (
            <li key={i} className="flex flex-wrap justify-between gap-2 py-2">
              <span>
                {line.title} <span className="text-muted">× {line.quantity}</span>
              </span>
              {line.price ? <span className="tabular-nums">{formatMoney(line.price)}</span> : null}
            </li>
          ))}
        </ul>
        {crypto ? <CryptoEvidence crypto={crypto} /> : null}
      </Section>
      <Card>
        <h2 className="font-bold">Keys ({keys.length})</h2>
        {keys.length === 0 ? (
          <p className="mt-2 text-sm text-muted">No keys handed out for this order.</p>
        ) : (
          <ResponsiveTable rows={keys} columns={keyColumns(canManage)} rowKey={(k) => k.ref} label="Keys" />
        )}
        {canResend || (canManage && cancellable) ? (
          <div className="mt-4 flex flex-wrap gap-4 border-t border-line pt-4">
            {canResend ? <ResendButton /> : null}
            {canManage && cancellable && crypto ? <CancelOrderButton number={order.number} seen={crypto.updatedAt} /> : null}
          </div>
        ) : null}
      </Card>
      <Section title="Timeline" empty={timeline.length === 0 ? "Nothing recorded yet." : null}>
        <Timeline entries={timeline} />
      </Section>
    </div>
  );
}
