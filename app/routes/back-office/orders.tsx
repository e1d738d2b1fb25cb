// /dashboard/orders: every order of every source, newest first, 50 a page (staff with orders.view).
// The search and filters are a GET form, so a page of results is a shareable URL; "Older" carries
// an opaque cursor. Admins also hand out a key by hand here (a manual order) and download CSVs.
import { data, Form, useFetcher } from "react-router";
import { Link } from "~/components/link";
import { orderTotal, OrderStateBadge } from "./+shared/order-state";
import { Pager } from "./+shared/pager";
import { ShieldCheck } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { Button, buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field, SelectField } from "~/components/ui/field";
import { CardTable } from "~/components/ui/card-table";
import type { Column } from "~/components/ui/responsive-table";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useSearching } from "~/components/use-searching";
import { answerInvalid, answerProblem } from "~/http/answer.server";
import { app, mailingDeps } from "~/http/context.server";
import { currentViewer, requireCapability } from "~/http/guards.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { checkForm } from "~/lib/form-schema";
import { encodeCursor, ORDER_SOURCES, ORDER_STATE_LABEL, ORDERS_PATH, type OrderRow, orderPath, SOURCE_LABEL } from "~/lib/orders";
import { can } from "~/lib/roles";
import { manualOrderSchema, orderListSchema } from "~/lib/schemas/orders";
import { createManualOrder } from "~/server/orders/order-actions.server";
import { listOrders, orderFilters } from "~/server/orders/order-list.server";
import { clientAddress } from "~/http/caller.server";
import { allVariants } from "~/server/catalogue/catalogue.server";
import type { Route } from "./+types/orders";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("orders.view")];

export const meta: Route.MetaFunction = () => [{ title: `Orders | ${BRAND}` }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, catalogue } = app(context);
  const url = new URL(request.url);
  const role = currentViewer(context).role;
  const manage = can(role, "orders.manage");
  const variants = manage
    ? await allVariants(catalogue)
        .then((all) => all.map((v) => ({ id: v.variant.id, title: v.title })))
        .catch((error: unknown) => {
          console.error("Failed to load variants for manual orders:", error);
          return [];
        })
    : [];
  const base = { query: url.search, variants, canManage: manage, canExport: can(role, "export") };
  const input = checkForm(orderListSchema, Object.fromEntries(url.searchParams));
  const none = { rows: [], next: null, paged: false };
  if (!input.ok) return data({ ...base, ...none, error: input.problem.message }, { status: 400 });
  const page = await listOrders(db, orderFilters(input.value), input.value.cursor);
  if (!page.ok) return data({ ...base, ...none, error: page.problem.message }, { status: 400 });
  const next =
    page.value.next && new URLSearchParams({ ...Object.fromEntries(url.searchParams), cursor: encodeCursor(page.value.next) }).toString();
  return { ...base, rows: page.value.rows, next, paged: input.value.cursor !== "", error: null };
}

const manualTitle = "Manual order";

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "manual-order", manualOrderSchema);
  if (!submission.ok) return answerInvalid(submission, { titles: { invalid: manualTitle } });
  const { viewer } = submission;
  const result = await createManualOrder(
    mailingDeps(context),
    app(context).catalogue,
    { viewer, ip: clientAddress(request) },
    submission.value,
  );
  if (!result.ok) return answerProblem(result.problem, { titles: { conflict: "Out of stock", invalid: manualTitle } });
  return redirectWithToast(orderPath({ source: "admin", reference: result.value.reference }), {
    title: "Key handed out",
    description: `Order M-${result.value.reference}: the key is on its way to ${submission.value.email}`,
  });
}

const columns: Column<OrderRow>[] = [
  {
    label: "Order",
    value: (o) => (
      <Link to={orderPath(o)} className="font-semibold text-accent-soft hover:underline">
        {`Order ${o.number}`}
      </Link>
    ),
  },
  { label: "Source", value: (o) => <Badge tone="blue">{SOURCE_LABEL[o.source]}</Badge> },
  {
    label: "E-mail",
    value: (o) => (
      <span className="inline-flex flex-wrap items-center gap-2">
        {o.email || <span className="text-muted">—</span>}
        {o.undelivered ? <Badge tone="red">E-mail failed</Badge> : null}
      </span>
    ),
  },
  { label: "State", value: (o) => <OrderStateBadge state={o.state} /> },
  { label: "Total", value: (o) => orderTotal(o) },
  { label: "Method", value: (o) => o.method },
  { label: "Date", value: (o) => <LocalTime ms={o.createdAt} format="datetime" className="text-muted" /> },
];

function Filters({ query, error }: { query: string; error: string | null }) {
  const searching = useSearching(ORDERS_PATH);
  const params = new URLSearchParams(query);
  const value = (name: string) => params.get(name) ?? "";
  return (
    <Form
      method="get"
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-6 lg:items-end"
      aria-describedby={error ? "orders-error" : undefined}
    >
      <Field
        label="Search"
        name="q"
        defaultValue={value("q")}
        maxLength={200}
        className="sm:col-span-2"
        placeholder="E-mail, key, txid or #1001"
        hint="An e-mail, a key, a 64-digit transaction id, or #1001, CRYPTO-…, R-12, M-3"
      />
      <SelectField
        label="Source"
        name="source"
        defaultValue={value("source")}
        options={[{ value: "", label: "All sources" }, ...ORDER_SOURCES.map((s) => ({ value: s, label: SOURCE_LABEL[s] }))]}
      />
      <SelectField
        label="State"
        name="state"
        defaultValue={value("state")}
        options={[{ value: "", label: "All states" }, ...Object.entries(ORDER_STATE_LABEL).map(([s, label]) => ({ value: s, label }))]}
      />
      <Field label="From (UTC day)" name="from" type="date" defaultValue={value("from")} />
      <Field label="To (UTC day)" name="to" type="date" defaultValue={value("to")} />
      <div className="flex gap-2 lg:col-span-6">
        <Button type="submit" disabled={searching}>
          {searching ? "Searching..." : "Search"}
        </Button>
        <Link to={ORDERS_PATH} className={buttonClass("ghost")}>
          Clear
        </Link>
      </div>
      {error ? (
        <p id="orders-error" role="alert" className="text-sm text-red-400 lg:col-span-6">
          {error}
        </p>
      ) : null}
    </Form>
  );
}

function ManualOrderForm({ variants }: { variants: { id: string; title: string }[] }) {
  const fetcher = useFetcher<typeof action>();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, manualOrderSchema, { title: manualTitle });
  return (
    <Card className="space-y-3">
      <h2 className="font-bold">Hand out a key</h2>
      <p className="text-sm text-muted">Takes the oldest code in stock of the variant, records it as a manual order and e-mails it.</p>
      <fetcher.Form ref={formRef} method="post" onSubmit={onSubmit} className="grid gap-3 lg:grid-cols-4 lg:items-end">
        <input type="hidden" name="intent" value="manual" />
        <Field label="Buyer's e-mail" name="email" type="email" required maxLength={254} autoComplete="off" error={errors.email} />
        <SelectField
          label="Variant"
          name="variantId"
          required
          placeholder="Choose a variant..."
          options={variants.map((v) => ({ value: v.id, label: v.title }))}
          error={errors.variantId}
        />
        <Field label="Reason" name="reason" required maxLength={200} autoComplete="off" error={errors.reason} />
        <Button type="submit" disabled={busy}>
          {busy ? "Handing out..." : "Hand out key"}
        </Button>
      </fetcher.Form>
    </Card>
  );
}

export default function Orders({ loaderData }: Route.ComponentProps) {
  const { rows, next, paged, error, query, variants, canManage, canExport } = loaderData;
  const filters = new URLSearchParams(query);
  filters.delete("cursor");
  const shared = filters.toString();
  return (
    <div className="space-y-8">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="flex items-center gap-3 text-3xl font-black tracking-tight">
          ORDERS <ShieldCheck className="size-6 text-accent" aria-label="Staff" />
        </h1>
        {canExport ? (
          <div className="flex flex-wrap gap-2">
            <a href={`${ORDERS_PATH}/export.csv${shared ? `?${shared}` : ""}`} className={buttonClass("outline", "sm")} download>
              Export orders (CSV)
            </a>
            <a href={`${ORDERS_PATH}/keys.csv`} className={buttonClass("outline", "sm")} download>
              Export keys (CSV)
            </a>
          </div>
        ) : null}
      </div>
      <Card>
        <Filters query={query} error={error} />
      </Card>
      {canManage ? <ManualOrderForm variants={variants} /> : null}
      <Card>
        <h2 className="font-bold">{paged ? "Older orders" : "Newest orders"}</h2>
        {rows.length === 0 ? (
          <p className="mt-4 text-sm text-muted">{error ? "Fix the search above to see orders." : "No orders match this search."}</p>
        ) : (
          <CardTable rows={rows} columns={columns} rowKey={(o) => o.key} label="Orders" />
        )}
        <Pager newest={paged ? `${ORDERS_PATH}${shared ? `?${shared}` : ""}` : null} older={next ? `${ORDERS_PATH}?${next}` : null} />
      </Card>
    </div>
  );
}
