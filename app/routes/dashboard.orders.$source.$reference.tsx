// /dashboard/orders/:source/:reference: one order of any source — header, lines, keys (masked; a
// "Reveal" shows one key to the one person who asked, audited), crypto evidence, and a timeline of
// everything that happened to it. The actions check their own capability per intent: support may
// reveal and resend; revoking, replacing and cancelling are for admins.
import { type ReactNode, useEffect, useRef, useState } from "react";
import { data, Link, useFetcher } from "react-router";
import { orderTotal, OrderStateBadge } from "~/components/admin/order-state";
import { ShieldCheck } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { type Column, ResponsiveTable } from "~/components/ui/responsive-table";
import { useFormCheck } from "~/components/use-form-check";
import { useResultToast } from "~/components/use-result-toast";
import { answer, answerProblem, type ProblemTitles, problemStatus } from "~/http/answer.server";
import { app, mailingDeps } from "~/http/context.server";
import { assertCapability, currentViewer, requireCapability } from "~/http/guards.server";
import { BRAND } from "~/lib/brand";
import { checkForm } from "~/lib/form-schema";
import { formatCoin } from "~/lib/crypto-orders";
import { ORDER_SOURCES, ORDERS_PATH, type OrderKeyView, type OrderSource, SOURCE_LABEL, type TimelineEntry } from "~/lib/orders";
import { can, type Capability } from "~/lib/roles";
import { type OrderActionInput, orderActionSchema } from "~/lib/schemas/orders";
import { cancelOrderFromPage, replaceKey, resendKeys, revealKey, revokeKey } from "~/server/admin/order-actions.server";
import { findOrder, orderDetail } from "~/server/admin/orders.server";
import { clientAddress } from "~/server/accounts/throttle.server";
import { readFormFields } from "~/server/platform/request-body.server";
import type { Route } from "./+types/dashboard.orders.$source.$reference";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("orders.view")];

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: `${loaderData ? `Order ${loaderData.order.number}` : "Order"} | ${BRAND}` }];

const sourceOf = (value: string): OrderSource => {
  if (!(ORDER_SOURCES as readonly string[]).includes(value)) throw data(null, { status: 404 });
  return value as OrderSource;
};

export async function loader({ params, context }: Route.LoaderArgs) {
  const detail = await orderDetail(app(context).db, sourceOf(params.source), params.reference);
  if (!detail.ok) throw data(null, { status: 404 });
  const role = currentViewer(context).role;
  return { ...detail.value, canResend: can(role, "orders.resend"), canManage: can(role, "orders.manage") };
}

const NEEDS: Record<OrderActionInput["intent"], Capability> = {
  reveal: "orders.view",
  resend: "orders.resend",
  revoke: "orders.manage",
  replace: "orders.manage",
  cancel: "orders.manage",
};

const titles: ProblemTitles = { invalid: (p) => (p.field === "reason" ? "Reason required" : "Error"), "not-found": "Key not found", conflict: "Nothing changed" };

export async function action({ request, params, context }: Route.ActionArgs) {
  const fields = await readFormFields(request);
  if (!fields.ok) throw data(fields.problem.message, { status: problemStatus(fields.problem) });
  // The capability first, by the intent asked for: a refused role learns nothing about the input.
  const asked = fields.value.intent as OrderActionInput["intent"] | undefined;
  const viewer = assertCapability(context, asked && Object.hasOwn(NEEDS, asked) ? NEEDS[asked] : "orders.manage");
  const submission = checkForm(orderActionSchema, fields.value);
  if (!submission.ok) return answerProblem(submission.problem, { titles, intent: asked });
  const form = submission.value;
  const deps = mailingDeps(context);
  const order = await findOrder(deps.db, sourceOf(params.source), params.reference);
  if (!order) throw data(null, { status: 404 });
  const actor = { viewer, ip: clientAddress(request) };
  const intent = form.intent;
  switch (form.intent) {
    case "reveal":
      return answer(await revealKey(deps.db, actor, order, form.key), { intent, titles, success: { title: "Key revealed", description: "The reveal was recorded in the audit log" } });
    case "resend":
      return answer(await resendKeys(deps, actor, order), { intent, titles, success: ({ count }) => ({ title: "E-mail sent", description: `${count} key(s) sent again to ${order.email}` }) });
    case "revoke":
      return answer(await revokeKey(deps, actor, order, form.key, form.reason), { intent, titles, success: ({ variantTitle }) => ({ title: "Key revoked", description: `The ${variantTitle} key stopped working; the buyer was told why` }) });
    case "replace":
      return answer(await replaceKey(deps, actor, order, form.key, form.reason), {
        intent,
        titles: { ...titles, conflict: "Not replaced" },
        success: ({ variantTitle }) => ({ title: "Key replaced", description: `A new ${variantTitle} key was e-mailed to ${order.email}` }),
      });
    case "cancel":
      return answer(await cancelOrderFromPage(deps.db, actor, order, form.reason), { intent, titles, success: { title: "Order cancelled", description: `Order ${order.number} was cancelled` } });
  }
}

const KEY_STATE_BADGE: Record<OrderKeyView["state"], { tone: "green" | "red" | "yellow"; label: string }> = {
  delivered: { tone: "green", label: "Delivered" },
  revoked: { tone: "red", label: "Revoked" },
  backordered: { tone: "yellow", label: "Waiting for stock" },
};

function RevealButton({ keyRef }: { keyRef: string }) {
  const fetcher = useFetcher<typeof action>();
  const revealed = fetcher.data?.ok && fetcher.data.intent === "reveal" ? (fetcher.data.value as { key: string }).key : null;
  useResultToast(fetcher);
  if (revealed) return <code className="font-mono break-all select-all">{revealed}</code>;
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value="reveal" />
      <input type="hidden" name="key" value={keyRef} />
      <Button type="submit" size="sm" variant="ghost" disabled={fetcher.state !== "idle"}>
        Reveal
      </Button>
    </fetcher.Form>
  );
}

/**
 * Revoking or replacing a key changes its row (its buttons go), so the forms share one fetcher
 * whose answer the page toasts: the toast outlives the form that asked.
 */
const KEY_CHANGE = "order-key-change";

/** Revoke or replace one key, with a reason (admins). */
function KeyChangeForm({ keyRef, intent, label }: { keyRef: string; intent: "revoke" | "replace"; label: string }) {
  const fetcher = useFetcher<typeof action>({ key: KEY_CHANGE });
  const formRef = useRef<HTMLFormElement>(null);
  const [open, setOpen] = useState(false);
  const done = fetcher.state === "idle" && fetcher.data?.ok === true;
  useEffect(() => {
    if (done) setOpen(false);
  }, [done]);
  const { errors, onSubmit } = useFormCheck(orderActionSchema, { title: "Reason required", answer: fetcher.data?.intent === intent ? fetcher.data : null });
  if (!open) {
    return (
      <Button size="sm" variant={intent === "revoke" ? "danger" : "outline"} onClick={() => setOpen(true)}>
        {label}
      </Button>
    );
  }
  return (
    <fetcher.Form ref={formRef} method="post" onSubmit={onSubmit} className="flex flex-col gap-2 sm:flex-row sm:items-end">
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="key" value={keyRef} />
      <Field label={`Why ${intent}?`} name="reason" required maxLength={200} autoComplete="off" error={errors.reason} />
      <div className="flex gap-2">
        <Button type="submit" size="sm" variant={intent === "revoke" ? "danger" : "primary"} disabled={fetcher.state !== "idle"}>
          {fetcher.state !== "idle" ? "Saving..." : label}
        </Button>
        <Button size="sm" variant="ghost" onClick={() => setOpen(false)}>
          Cancel
        </Button>
      </div>
    </fetcher.Form>
  );
}

function keyColumns(canManage: boolean): Column<OrderKeyView>[] {
  return [
    { label: "Key", value: (k) => (k.state === "backordered" ? <span className="text-muted">—</span> : <span className="font-mono">{k.masked}</span>) },
    { label: "Variant", value: (k) => k.variantTitle },
    { label: "State", value: (k) => <Badge tone={KEY_STATE_BADGE[k.state].tone}>{KEY_STATE_BADGE[k.state].label}</Badge> },
    {
      label: "Licence",
      value: (k) =>
        k.licence ? (
          <span>
            {k.licence.state}
            {k.licence.activatedAt ? (
              <span className="text-muted">
                {" "}
                · activated <LocalTime ms={k.licence.activatedAt} />
              </span>
            ) : null}
            <span className="text-muted">{k.licence.pcBound ? " · PC bound" : " · no PC"}</span>
          </span>
        ) : (
          <span className="text-muted">—</span>
        ),
    },
    {
      label: "Actions",
      value: (k) =>
        k.state === "backordered" ? null : (
          <div className="flex flex-wrap items-center gap-2 whitespace-normal">
            <RevealButton keyRef={k.ref} />
            {canManage && k.state === "delivered" ? (
              <>
                <KeyChangeForm keyRef={k.ref} intent="revoke" label="Revoke" />
                {k.replaceable ? <KeyChangeForm keyRef={k.ref} intent="replace" label="Replace" /> : null}
              </>
            ) : null}
          </div>
        ),
    },
  ];
}

function OrderButton({ intent, label, variant, withReason }: { intent: "resend" | "cancel"; label: string; variant: "outline" | "danger"; withReason?: boolean }) {
  const fetcher = useFetcher<typeof action>();
  useResultToast(fetcher);
  const busy = fetcher.state !== "idle";
  return (
    <fetcher.Form method="post" className="flex flex-col gap-2 sm:flex-row sm:items-end">
      <input type="hidden" name="intent" value={intent} />
      {withReason ? <Field label="Reason (optional)" name="reason" maxLength={200} autoComplete="off" /> : null}
      <Button type="submit" variant={variant} disabled={busy}>
        {busy ? "Working..." : label}
      </Button>
    </fetcher.Form>
  );
}

const TIMELINE_TONE: Record<TimelineEntry["kind"], "green" | "blue" | "yellow" | "red" | "gray" | "orange"> = {
  order: "green",
  webhook: "blue",
  mail: "gray",
  refund: "red",
  crypto: "yellow",
  backorder: "yellow",
  audit: "orange",
};

/** A card with a heading, and a line of its own when it has nothing to list. */
function Section({ title, empty, children }: { title: string; empty: string | null; children: ReactNode }) {
  return (
    <Card>
      <h2 className="font-bold">{title}</h2>
      {empty ? <p className="mt-2 text-sm text-muted">{empty}</p> : children}
    </Card>
  );
}

function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-muted">{label}</dt>
      <dd className="break-words">{children}</dd>
    </div>
  );
}

export default function OrderPage({ loaderData }: Route.ComponentProps) {
  const { order, lines, crypto, reason, keys, timeline, cancellable, canResend, canManage } = loaderData;
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
      <Section title="Lines" empty={lines.length === 0 && !crypto ? "No lines recorded." : null}>
        <ul className="mt-2 divide-y divide-line text-sm">
          {lines.map((line, i) => (
            <li key={i} className="flex flex-wrap justify-between gap-2 py-2">
              <span>
                {line.title} <span className="text-muted">× {line.quantity}</span>
              </span>
              {line.price ? <span>{line.price}</span> : null}
            </li>
          ))}
        </ul>
        {crypto ? (
          <dl className="mt-4 grid gap-3 text-sm sm:grid-cols-2">
            <Detail label="Coin">{crypto.coin}</Detail>
            <Detail label="Quoted">{crypto.amountUnits === null ? "—" : `${formatCoin(crypto.amountUnits)} ${crypto.coin}`}</Detail>
            <Detail label="Received">{`${formatCoin(crypto.receivedUnits)} ${crypto.coin}`}</Detail>
            <Detail label="Confirmations">{crypto.confirmations}</Detail>
            <Detail label="Address">
              <span className="font-mono break-all">{crypto.walletAddress}</span>
            </Detail>
            {crypto.review ? <Detail label="Review">{crypto.review}</Detail> : null}
            {crypto.payments.map((p) => (
              <Detail key={p.txid} label="Transaction">
                <span className="font-mono break-all">{p.txid}</span> ({formatCoin(p.units)} {crypto.coin}, {p.height === null ? "unconfirmed" : `block ${p.height}`})
              </Detail>
            ))}
            {crypto.transactionId ? (
              <Detail label="Transaction (typed by the buyer)">
                <span className="font-mono break-all">{crypto.transactionId}</span>
              </Detail>
            ) : null}
          </dl>
        ) : null}
      </Section>
      <Card>
        <h2 className="font-bold">Keys ({keys.length})</h2>
        {keys.length === 0 ? <p className="mt-2 text-sm text-muted">No keys handed out for this order.</p> : <ResponsiveTable rows={keys} columns={keyColumns(canManage)} rowKey={(k) => k.ref} label="Keys" />}
        {canResend || (canManage && cancellable) ? (
          <div className="mt-4 flex flex-wrap gap-4 border-t border-line pt-4">
            {canResend ? <OrderButton intent="resend" label="Resend key e-mail" variant="outline" /> : null}
            {canManage && cancellable ? <OrderButton intent="cancel" label="Cancel order" variant="danger" withReason /> : null}
          </div>
        ) : null}
      </Card>
      <Section title="Timeline" empty={timeline.length === 0 ? "Nothing recorded yet." : null}>
          <ol aria-label="Timeline" className="mt-3 space-y-3">
            {timeline.map((e, i) => (
              <li key={i} className="flex flex-col gap-1 border-l-2 border-line pl-3 text-sm sm:flex-row sm:gap-4">
                <LocalTime ms={e.at} format="datetime" className="shrink-0 text-muted sm:w-48" />
                <div className="min-w-0 space-y-0.5">
                  <p className="flex flex-wrap items-center gap-2">
                    <Badge tone={TIMELINE_TONE[e.kind]}>{e.kind}</Badge>
                    <span className="break-words">{e.title}</span>
                    {e.actor ? <span className="text-muted">by {e.actor}</span> : null}
                  </p>
                  {e.detail ? <p className="text-muted break-words">{e.detail}</p> : null}
                </div>
              </li>
            ))}
          </ol>
      </Section>
    </div>
  );
}
