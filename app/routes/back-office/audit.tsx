// /dashboard/audit: the audit log for staff (capability audit.view: admins and support), newest
// first, filtered by actor, kind and days, 50 entries a page (decision 038). Filters that cannot be
// read are shown next to their field with status 400.
import { data, Form } from "react-router";
import { Link } from "~/components/link";
import { ScrollText } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { describedBy, Field, FieldError } from "~/components/ui/field";
import { inputClass } from "~/components/ui/input-class";
import { type Column, ResponsiveTable } from "~/components/ui/responsive-table";
import { problemStatus } from "~/http/problem-status.server";
import { app } from "~/http/context.server";
import { requireCapability } from "~/http/guards.server";
import { actionGroup, actionLabel } from "~/lib/audit";
import { BRAND } from "~/lib/brand";
import { checkForm } from "~/lib/form-schema";
import type { Problem } from "~/lib/result";
import { type AuditFilters, auditFiltersSchema } from "~/lib/schemas/audit";
import { type AuditEntry, auditActions, auditLogPage } from "~/server/audit/audit-log.server";
import type { Route } from "./+types/audit";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("audit.view")];

export const meta: Route.MetaFunction = () => [{ title: `Audit Log | ${BRAND}` }];

const FILTER_NAMES = ["actor", "kind", "from", "to"] as const;

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db } = app(context);
  const params = new URL(request.url).searchParams;
  // What was typed, to show back in the form whatever its verdict.
  const typed = Object.fromEntries(FILTER_NAMES.map((name) => [name, params.get(name) ?? ""])) as Pick<
    AuditFilters,
    (typeof FILTER_NAMES)[number]
  >;
  const actions = auditActions(db);
  const filters = checkForm(auditFiltersSchema, { ...typed, cursor: params.get("cursor") ?? "" });
  const page = filters.ok ? await auditLogPage(db, filters.value) : filters;
  const answer = { filters: typed, actions: await actions, paged: filters.ok && filters.value.cursor !== "" };
  if (!page.ok)
    return data(
      { ...answer, entries: [] as AuditEntry[], next: null, problem: page.problem as Problem | null },
      { status: problemStatus(page.problem) },
    );
  return { ...answer, ...page.value, problem: null };
}

function Subject({ entry }: { entry: AuditEntry }) {
  if (!entry.subject) return <span className="text-muted">—</span>;
  if (entry.subjectAccount) {
    return (
      <Link to={`/dashboard/customers/${entry.subjectAccount.id}`} className="text-accent hover:underline">
        {entry.subjectAccount.username}
      </Link>
    );
  }
  const order = entry.subjectOrder;
  return order ? (
    <Link to={order.path} className="font-mono text-accent hover:underline">
      {`Order ${order.number}`}
    </Link>
  ) : (
    <span className="font-mono break-all">{entry.subject}</span>
  );
}

function Detail({ fields }: { fields: AuditEntry["detail"] }) {
  if (fields.length === 0) return <span className="text-muted">—</span>;
  return (
    <dl className="space-y-0.5">
      {fields.map(([key, value]) => (
        <div key={key} className="break-words">
          <dt className="inline text-muted">{key}: </dt>
          <dd className="inline">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

const COLUMNS: Column<AuditEntry>[] = [
  { label: "Time", value: (entry) => <LocalTime ms={entry.createdAt} format="datetime" /> },
  {
    label: "Actor",
    value: ({ actor }) =>
      actor === null ? (
        <Badge>System</Badge>
      ) : (
        <Link to={`/dashboard/customers/${actor.id}`} className="text-accent hover:underline">
          {actor.username ?? actor.id}
        </Link>
      ),
  },
  {
    label: "Action",
    value: (entry) => (
      <span title={entry.action}>
        {actionLabel(entry.action)} <span className="block text-xs text-muted">{entry.action}</span>
      </span>
    ),
  },
  { label: "Subject", value: (entry) => <Subject entry={entry} />, wrap: true },
  { label: "Detail", value: (entry) => <Detail fields={entry.detail} />, wrap: true },
  { label: "IP", value: (entry) => (entry.ip ? <span className="font-mono">{entry.ip}</span> : <span className="text-muted">—</span>) },
];

/** The kind filter's choices: every group ("All licence.* actions") with its actions under it. */
function KindSelect({ actions, value, error }: { actions: string[]; value: string; error?: string }) {
  const groups = new Map<string, string[]>();
  for (const action of actions) groups.set(actionGroup(action), [...(groups.get(actionGroup(action)) ?? []), action]);
  return (
    <div className="space-y-1.5">
      <label htmlFor="audit-kind" className="block text-sm font-medium text-zinc-200">
        Kind
      </label>
      <select id="audit-kind" name="kind" defaultValue={value} className={inputClass} {...describedBy("audit-kind", { error })}>
        <option value="">All kinds</option>
        {/* A kind no entry has yet (from a link) stays chosen, so the form shows what was asked. */}
        {value && !actions.includes(value) && !groups.has(value) ? <option value={value}>{value}</option> : null}
        {[...groups].map(([group, members]) => (
          <optgroup key={group} label={group.replace(/\.$/, "")}>
            {group.endsWith(".") ? <option value={group}>{`All ${group}* actions`}</option> : null}
            {members.map((action) => (
              <option key={action} value={action}>
                {actionLabel(action)}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
      <FieldError id="audit-kind" error={error} />
    </div>
  );
}

export default function AuditLog({ loaderData }: Route.ComponentProps) {
  const { filters, actions, entries, next, problem, paged } = loaderData;
  const errorOf = (field: string) => (problem?.field === field ? problem.message : undefined);
  const filtered = FILTER_NAMES.some((name) => filters[name] !== "");
  const nextHref = next
    ? `?${new URLSearchParams({ ...Object.fromEntries(FILTER_NAMES.filter((n) => filters[n]).map((n) => [n, filters[n]])), cursor: next })}`
    : null;
  const firstHref = `?${new URLSearchParams(Object.fromEntries(FILTER_NAMES.filter((n) => filters[n]).map((n) => [n, filters[n]])))}`;
  return (
    <div className="space-y-8">
      <h1 className="flex items-center gap-3 text-3xl font-black tracking-tight">
        AUDIT LOG <ScrollText className="size-6 text-accent" aria-hidden />
      </h1>
      <Card>
        <h2 className="font-bold">Filter</h2>
        <Form method="get" className="mt-4 grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4" noValidate>
          <Field
            label="Actor"
            name="actor"
            defaultValue={filters.actor}
            placeholder="Username, e-mail or system"
            hint="“system” for the shop's own jobs"
            autoComplete="off"
            error={errorOf("actor")}
          />
          <KindSelect actions={actions} value={filters.kind} error={errorOf("kind")} />
          <Field label="From (UTC day)" name="from" type="date" defaultValue={filters.from} error={errorOf("from")} />
          <Field label="To (UTC day)" name="to" type="date" defaultValue={filters.to} error={errorOf("to")} />
          <div className="flex flex-wrap items-center gap-3 sm:col-span-2 lg:col-span-4">
            <button type="submit" className={buttonClass("primary")}>
              Apply filters
            </button>
            {filtered ? (
              <Link to="/dashboard/audit" className={buttonClass("ghost")}>
                Clear filters
              </Link>
            ) : null}
          </div>
        </Form>
        {/* A problem with no field of the form (a broken page link) is said under it. */}
        {problem && !FILTER_NAMES.some((name) => name === problem.field) ? (
          <p role="alert" className="mt-3 text-sm text-red-400">
            {problem.message}
          </p>
        ) : null}
      </Card>
      <Card>
        <h2 className="font-bold">{paged ? "Older entries" : "Newest entries"}</h2>
        {entries.length === 0 ? (
          <p className="mt-3 text-sm text-muted">
            {problem
              ? "Fix the filters above to see entries."
              : filtered
                ? "No entries match these filters."
                : "Nothing has been recorded yet."}
          </p>
        ) : (
          <ResponsiveTable label="Audit log entries" rows={entries} columns={COLUMNS} rowKey={(entry) => String(entry.id)} />
        )}
        <nav aria-label="Audit log pages" className="mt-4 flex flex-wrap gap-3">
          {paged ? (
            <Link to={firstHref} className={buttonClass("outline", "sm")}>
              Newest entries
            </Link>
          ) : null}
          {nextHref ? (
            <Link to={nextHref} className={buttonClass("outline", "sm")}>
              Older entries
            </Link>
          ) : null}
        </nav>
      </Card>
    </div>
  );
}
