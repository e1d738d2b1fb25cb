// /dashboard/manage-codes: admin only. Non-admins get 403 from the server (loader and every action)
// and the Access Denied screen (the root error boundary), which returns them to the dashboard.
import { desc } from "drizzle-orm";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { data, Form, useFetcher, useSearchParams, useSubmit } from "react-router";
import * as v from "valibot";
import { copyText } from "~/components/copy";
import { Copy, ShieldCheck, Trash2, Webhook } from "~/components/icons";
import { useToast } from "~/components/toaster";
import { useResultToast } from "~/components/use-result-toast";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { inputClass } from "~/components/ui/field";
import { BRAND } from "~/lib/brand";
import { CRYPTO_STATUS_LABEL } from "~/lib/crypto-orders";
import { formatDate, formatDateTime, formatUsd } from "~/lib/format";
import { isPeriod, PERIODS, periodStart } from "~/lib/periods";
import type { Toast } from "~/lib/toast";
import { allVariants } from "~/server/catalogue/catalogue.server";
import { addCodes, addCodesMessage, availableCodes, deleteAvailableCode, openBackorders, soldCodes } from "~/server/fulfilment/stock.server";
import { app } from "~/server/platform/context.server";
import { cancelCryptoOrder, fulfilCryptoOrder, submittedOrders } from "~/server/payments/crypto-orders.server";
import { webhookDeliveries } from "~/server/platform/db/schema.server";
import { readFormFields } from "~/server/platform/request-body.server";
import { currentViewer, requireAdmin } from "~/http/guards.server";
import { fillBackordersAndNotify } from "~/server/fulfilment/orders.server";
import { HANDLED_TOPICS } from "~/server/fulfilment/shopify-webhook.server";
import type { Route } from "./+types/dashboard.manage-codes";

export const middleware: Route.MiddlewareFunction[] = [requireAdmin];

export const meta: Route.MetaFunction = () => [{ title: `Manage Codes | ${BRAND}` }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env, catalogue } = app(context);
  const url = new URL(request.url);
  const availableVariant = url.searchParams.get("available") || undefined;
  const soldVariant = url.searchParams.get("sold") || undefined;
  const period = isPeriod(url.searchParams.get("period")) ? (url.searchParams.get("period") as keyof typeof PERIODS) : "all";
  const tz = Number(url.searchParams.get("tz"));
  const since = periodStart(period, Date.now(), Number.isFinite(tz) && Math.abs(tz) <= 14 * 60 ? tz : 0);

  const [variants, available, sold, waiting, cryptoQueue, deliveries] = await Promise.all([
    allVariants(catalogue).catch((error: unknown) => {
      console.error("Failed to load products for the code manager:", error);
      return null;
    }),
    availableCodes(db, availableVariant),
    soldCodes(db, { variantId: soldVariant, since }),
    openBackorders(db),
    submittedOrders(db),
    db.select().from(webhookDeliveries).orderBy(desc(webhookDeliveries.receivedAt)).limit(10),
  ]);
  return {
    variants: variants?.map((v) => ({ id: v.variant.id, title: v.title })) ?? [],
    variantsFailed: variants === null,
    available,
    sold,
    backorders: waiting,
    cryptoQueue,
    filters: { availableVariant: availableVariant ?? "", soldVariant: soldVariant ?? "", period },
    webhook: {
      endpoint: `${url.origin}/webhooks/shopify`,
      secretSet: Boolean(env.SHOPIFY_WEBHOOK_SECRET),
      topics: HANDLED_TOPICS,
      deliveries,
    },
  };
}

const addSchema = v.object({
  variantId: v.pipe(v.optional(v.string(), ""), v.trim()),
  codes: v.optional(v.string(), ""),
});

type ActionResult = { ok: boolean; toast: Toast; intent: string };
const answer = (intent: string, ok: boolean, toast: Toast, status = ok ? 200 : 400) => data<ActionResult>({ intent, ok, toast }, { status });

export async function action({ request, context }: Route.ActionArgs) {
  const { db, env, ctx, catalogue } = app(context);
  const admin = currentViewer(context);
  const form = await readFormFields(request);
  const deps = { db, mail: env, waitUntil: ctx.waitUntil.bind(ctx) };

  switch (form.intent) {
    case "add": {
      const parsed = v.safeParse(addSchema, form);
      const { variantId, codes } = parsed.success ? parsed.output : { variantId: "", codes: "" };
      if (!variantId || !codes.trim()) return answer("add", false, { title: "Error", description: "Please select a variant and enter codes", variant: "destructive" });
      const variant = (await allVariants(catalogue)).find((v) => v.variant.id === variantId);
      if (!variant) return answer("add", false, { title: "Error", description: "That variant is not in the catalogue", variant: "destructive" });
      const result = await addCodes(db, { id: variant.variant.id, title: variant.title }, codes);
      if (!result.ok) return answer("add", false, { title: result.title, description: result.message, variant: "destructive" });
      const filled = await fillBackordersAndNotify(deps, variant.variant.id);
      const filledNote = filled.length > 0 ? `\n${filled.length} waiting order unit(s) filled and e-mailed` : "";
      return answer("add", true, { title: "Success", description: addCodesMessage(result, variant.title) + filledNote });
    }
    case "delete": {
      const id = Number(form.id);
      if (!/^\d{1,15}$/.test(form.id ?? "") || !Number.isSafeInteger(id)) {
        return answer("delete", false, { title: "Failed to delete code", description: "Unknown code", variant: "destructive" });
      }
      const deleted = await deleteAvailableCode(db, id);
      return deleted
        ? answer("delete", true, { title: "Code deleted successfully" })
        : answer("delete", false, { title: "Failed to delete code", description: "Only available codes can be deleted", variant: "destructive" }, 409);
    }
    case "fulfil": {
      const result = await fulfilCryptoOrder(deps, admin, form);
      return result.ok
        ? answer("fulfil", true, { title: "Success", description: `Order ${result.value.orderNumber} fulfilled successfully` })
        : answer("fulfil", false, { title: "Failed to fulfill order", description: result.message, variant: "destructive" }, result.status);
    }
    case "cancel": {
      const result = await cancelCryptoOrder(db, admin, form.orderId);
      return result.ok
        ? answer("cancel", true, { title: "Order cancelled", description: `Order ${result.value.orderNumber} was cancelled` })
        : answer("cancel", false, { title: "Error", description: result.message, variant: "destructive" }, result.status);
    }
    default:
      return answer("unknown", false, { title: "Error", description: "Unknown request", variant: "destructive" });
  }
}

function AddCodes({ variants }: { variants: { id: string; title: string }[] }) {
  const fetcher = useFetcher<typeof action>();
  const formRef = useRef<HTMLFormElement>(null);
  const { toast } = useToast();
  useResultToast(fetcher, () => {
    const box = formRef.current?.elements.namedItem("codes") as HTMLTextAreaElement | null;
    if (box) box.value = "";
  });
  const busy = fetcher.state !== "idle";
  function check(event: FormEvent<HTMLFormElement>) {
    const form = new FormData(event.currentTarget);
    if (!form.get("variantId") || !String(form.get("codes")).trim()) {
      event.preventDefault();
      toast({ title: "Error", description: "Please select a variant and enter codes", variant: "destructive" });
    }
  }
  return (
    <Card>
      <h2 className="text-lg font-bold">Add New Codes</h2>
      <fetcher.Form ref={formRef} method="post" className="mt-4 space-y-4" onSubmit={check}>
        <input type="hidden" name="intent" value="add" />
        <div className="space-y-1.5">
          <label htmlFor="add-variant" className="text-sm font-medium">
            Variant
          </label>
          <select id="add-variant" name="variantId" defaultValue="" className={inputClass}>
            <option value="" disabled>
              Choose a variant...
            </option>
            {variants.map((v) => (
              <option key={v.id} value={v.id}>
                {v.title}
              </option>
            ))}
          </select>
        </div>
        <div className="space-y-1.5">
          <label htmlFor="add-codes" className="text-sm font-medium">
            Product Codes (one per line)
          </label>
          <textarea id="add-codes" name="codes" rows={6} className={`${inputClass} h-auto py-2 font-mono`} aria-describedby="add-codes-hint" />
          <p id="add-codes-hint" className="text-xs text-muted">
            Similar codes with different numbers are allowed (e.g. KEY-0001, KEY-0002). Exact duplicates are skipped.
          </p>
        </div>
        <Button type="submit" disabled={busy}>
          {busy ? "Adding..." : "Add Codes"}
        </Button>
      </fetcher.Form>
    </Card>
  );
}

function VariantFilter({ name, value, variants, label }: { name: string; value: string; variants: { id: string; title: string }[]; label: string }) {
  return (
    <select name={name} defaultValue={value} aria-label={label} className={`${inputClass} sm:w-64`}>
      <option value="">All variants</option>
      {variants.map((v) => (
        <option key={v.id} value={v.id}>
          {v.title}
        </option>
      ))}
    </select>
  );
}

// Rows disappear once their action succeeds, so their fetchers share a key and the page (which
// stays) reports the result.
const DELETE_FETCHER = "delete-code";
const CRYPTO_FETCHER = "crypto-queue";

function DeleteCode({ id, code }: { id: number; code: string }) {
  const fetcher = useFetcher<typeof action>({ key: DELETE_FETCHER });
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value="delete" />
      <input type="hidden" name="id" value={id} />
      <button type="submit" disabled={fetcher.state !== "idle"} className="rounded p-1.5 text-muted hover:text-red-400" aria-label={`Delete code ${code}`}>
        <Trash2 className="size-4" aria-hidden />
      </button>
    </fetcher.Form>
  );
}

function FulfilCryptoOrder({ order }: { order: Awaited<ReturnType<typeof loader>>["cryptoQueue"][number] }) {
  const fetcher = useFetcher<typeof action>({ key: CRYPTO_FETCHER });
  const { toast } = useToast();
  const busy = fetcher.state !== "idle";
  return (
    <li className="rounded-lg border border-line bg-panel-2 p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="font-mono font-semibold">{order.orderNumber}</p>
        <Badge tone="yellow">{CRYPTO_STATUS_LABEL[order.status]}</Badge>
      </div>
      <dl className="mt-2 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
        <div>
          <dt className="inline text-muted">Product: </dt>
          <dd className="inline">{order.productTitle} - {order.variantTitle}</dd>
        </div>
        <div>
          <dt className="inline text-muted">Customer: </dt>
          <dd className="inline">{order.customerEmail}</dd>
        </div>
        <div>
          <dt className="inline text-muted">Amount: </dt>
          <dd className="inline">{formatUsd(order.amountCents)} in {order.cryptoType}</dd>
        </div>
        <div>
          <dt className="inline text-muted">Created: </dt>
          <dd className="inline">{formatDateTime(order.createdAt)} UTC</dd>
        </div>
        <div className="sm:col-span-2">
          <dt className="inline text-muted">Transaction: </dt>
          <dd className="inline font-mono break-all">{order.transactionId}</dd>
        </div>
      </dl>
      <fetcher.Form
        method="post"
        className="mt-3 space-y-2"
        onSubmit={(event) => {
          const form = new FormData(event.currentTarget);
          const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
          if (submitter?.value === "manual" && !String(form.get("code")).trim()) {
            event.preventDefault();
            toast({ title: "Error", description: "Please enter a product code", variant: "destructive" });
          }
        }}
      >
        <input type="hidden" name="intent" value="fulfil" />
        <input type="hidden" name="orderId" value={order.id} />
        <input name="code" placeholder="Enter product code" aria-label={`Product code for ${order.orderNumber}`} className={`${inputClass} font-mono`} />
        <div className="flex flex-wrap gap-2">
          <Button type="submit" name="source" value="manual" disabled={busy}>
            Fulfill
          </Button>
          <Button type="submit" name="source" value="stock" variant="outline" disabled={busy}>
            Use next code in stock
          </Button>
        </div>
      </fetcher.Form>
      <fetcher.Form method="post" className="mt-2">
        <input type="hidden" name="intent" value="cancel" />
        <input type="hidden" name="orderId" value={order.id} />
        <button type="submit" className="text-xs text-muted underline hover:text-red-400" disabled={busy}>
          Cancel this order
        </button>
      </fetcher.Form>
    </li>
  );
}

const OUTCOME_TONE: Record<string, "green" | "yellow" | "red" | "gray"> = { processed: "green", processing: "yellow", ignored: "gray", rejected: "red", error: "red" };

export default function ManageCodes({ loaderData }: Route.ComponentProps) {
  const { variants, variantsFailed, available, sold, backorders, cryptoQueue, filters, webhook } = loaderData;
  const { toast } = useToast();
  const submit = useSubmit();
  const [searchParams] = useSearchParams();
  useResultToast(useFetcher<typeof action>({ key: DELETE_FETCHER }));
  useResultToast(useFetcher<typeof action>({ key: CRYPTO_FETCHER }));
  const [tz, setTz] = useState("");
  useEffect(() => setTz(String(new Date().getTimezoneOffset())), []);
  useEffect(() => {
    if (variantsFailed) toast({ title: "Failed to load products", variant: "destructive" });
  }, [variantsFailed, toast]);

  const filterForm = (event: FormEvent<HTMLFormElement>) => submit(event.currentTarget, { preventScrollReset: true, replace: true });
  const keep = (names: string[]) =>
    names.map((name) => (searchParams.get(name) ? <input key={name} type="hidden" name={name} value={searchParams.get(name)!} /> : null));

  return (
    <div className="space-y-8">
      <h1 className="flex items-center gap-3 text-3xl font-black tracking-tight">
        MANAGE CODES <ShieldCheck className="size-6 text-accent" aria-label="Admin" />
      </h1>
      <div className="grid grid-cols-1 gap-8 xl:grid-cols-2">
        <AddCodes variants={variants} />

        <Card>
          <div className="flex flex-wrap items-center justify-between gap-3">
            <h2 className="text-lg font-bold">Available Codes ({available.total})</h2>
            <Button
              variant="outline"
              size="sm"
              disabled={available.rows.length === 0}
              onClick={() =>
                copyText(available.rows.map((r) => r.code).join("\n"), toast, { title: "Copied!", description: `${available.rows.length} codes copied to clipboard` })
              }
            >
              <Copy className="size-4" aria-hidden /> Copy All Codes
            </Button>
          </div>
          <Form method="get" className="mt-3" onChange={filterForm}>
            {keep(["sold", "period", "tz"])}
            <VariantFilter name="available" value={filters.availableVariant} variants={variants} label="Filter available codes by variant" />
          </Form>
          <ul className="mt-3 max-h-[400px] space-y-2 overflow-y-auto pr-1">
            {available.rows.length === 0 ? <li className="text-sm text-muted">No available codes.</li> : null}
            {available.rows.map((row) => (
              <li key={row.id} className="flex items-center gap-3 rounded-md border border-line bg-panel-2 px-3 py-2">
                <div className="min-w-0 flex-1">
                  <p className="truncate font-mono text-sm">{row.code}</p>
                  <p className="truncate text-xs text-muted">{row.variantTitle}</p>
                </div>
                <Badge tone="green">Available</Badge>
                <DeleteCode id={row.id} code={row.code} />
              </li>
            ))}
          </ul>
        </Card>
      </div>

      <Card>
        <h2 className="text-lg font-bold">Sold Codes ({sold.total})</h2>
        <Form method="get" className="mt-3 flex flex-col gap-2 sm:flex-row" onChange={filterForm}>
          {keep(["available"])}
          <input type="hidden" name="tz" value={tz} />
          <VariantFilter name="sold" value={filters.soldVariant} variants={variants} label="Filter sold codes by variant" />
          <select name="period" defaultValue={filters.period} aria-label="Time period" className={`${inputClass} sm:w-48`}>
            {Object.entries(PERIODS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Form>
        <ul className="mt-3 max-h-[400px] space-y-2 overflow-y-auto pr-1">
          {sold.rows.length === 0 ? <li className="text-sm text-muted">No sold codes in this view.</li> : null}
          {sold.rows.map((row) => (
            <li key={row.id} className="flex flex-wrap items-center gap-x-4 gap-y-1 rounded-md border border-line bg-panel-2 px-3 py-2 text-sm">
              <span className="font-mono">{row.code}</span>
              <span className="text-muted">{row.variantTitle}</span>
              <span>{row.customerEmail}</span>
              <span className="text-muted">Order {row.orderId}</span>
              <span className="text-muted">{row.usedAt ? `${formatDateTime(row.usedAt)} UTC` : ""}</span>
              <span className="ml-auto">{row.revokedAt ? <Badge tone="red">Revoked</Badge> : <Badge tone="blue">Sold</Badge>}</span>
            </li>
          ))}
        </ul>
      </Card>

      <div className="grid grid-cols-1 gap-8 xl:grid-cols-2">
        <Card>
          <h2 className="text-lg font-bold">Backorders ({backorders.length})</h2>
          <p className="mt-1 text-sm text-muted">Paid order units that found no code. Adding codes for the variant fills them, oldest first, and e-mails each key.</p>
          <ul className="mt-3 max-h-[400px] space-y-2 overflow-y-auto">
            {backorders.length === 0 ? <li className="text-sm text-muted">Nothing is waiting.</li> : null}
            {backorders.map((b) => (
              <li key={b.id} className="rounded-md border border-yellow-500/30 bg-yellow-500/5 px-3 py-2 text-sm">
                <p className="font-semibold">{b.variantTitle}</p>
                <p className="text-muted">
                  Order {b.orderId} · {b.customerEmail} · waiting since {formatDate(b.createdAt)}
                </p>
              </li>
            ))}
          </ul>
        </Card>

        <Card>
          <h2 className="text-lg font-bold">Crypto Orders to Fulfill ({cryptoQueue.length})</h2>
          <ul className="mt-3 space-y-3">
            {cryptoQueue.length === 0 ? <li className="text-sm text-muted">No submitted crypto payments.</li> : null}
            {cryptoQueue.map((order) => (
              <FulfilCryptoOrder key={order.id} order={order} />
            ))}
          </ul>
        </Card>
      </div>

      <Card>
        <h2 className="flex items-center gap-2 text-lg font-bold">
          <Webhook className="size-5 text-accent" aria-hidden /> Webhook Integration
        </h2>
        <p className="mt-2 text-sm text-muted">
          The webhook is active. It listens for order events from the storefront ({webhook.topics.join(", ")}) and e-mails an available code matching each
          purchased variant to the customer; orders without stock are backordered.
        </p>
        <dl className="mt-4 grid gap-3 text-sm sm:grid-cols-2">
          <div>
            <dt className="text-muted">Endpoint</dt>
            <dd className="font-mono break-all">{webhook.endpoint}</dd>
          </div>
          <div>
            <dt className="text-muted">Signing secret</dt>
            <dd>{webhook.secretSet ? <Badge tone="green">Set</Badge> : <Badge tone="red">Not set: every delivery is refused</Badge>}</dd>
          </div>
        </dl>
        <h3 className="mt-6 text-sm font-semibold">Latest deliveries</h3>
        <ul className="mt-2 space-y-2 text-sm">
          {webhook.deliveries.length === 0 ? <li className="text-muted">No deliveries yet.</li> : null}
          {webhook.deliveries.map((d) => (
            <li key={d.id} className="flex flex-wrap items-center gap-x-4 gap-y-1 rounded-md border border-line bg-panel-2 px-3 py-2">
              <Badge tone={OUTCOME_TONE[d.outcome] ?? "gray"}>{d.outcome}</Badge>
              <span className="font-mono">{d.topic}</span>
              {d.orderId ? <span className="text-muted">Order {d.orderId}</span> : null}
              <span className="text-muted">{formatDateTime(d.receivedAt)} UTC</span>
              {d.detail ? <span className="w-full text-muted">{d.detail}</span> : null}
            </li>
          ))}
        </ul>
      </Card>
    </div>
  );
}
