// /dashboard/customers: staff find a customer by e-mail, username, a key they hold or the PC a key
// is bound to (GET ?q=); with nothing asked, every account, newest first, a page at a time.
// Buyers who paid without an account are listed by e-mail ("No account").
import { Link } from "~/components/link";
import { CustomerBadges, customerHref } from "./+shared/customers/customer-badges";
import { Pager } from "./+shared/pager";
import { SearchForm } from "./+shared/search-form";
import { Users } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { Card } from "~/components/ui/card";
import { useSearching } from "~/components/use-searching";
import { type Column, ResponsiveTable } from "~/components/ui/responsive-table";
import { app } from "~/http/context.server";
import { requireCapability } from "~/http/guards.server";
import { BRAND } from "~/lib/brand";
import { checkForm } from "~/lib/form-schema";
import { customerSearchSchema } from "~/lib/schemas/customers";
import { searchCustomers } from "~/server/customers/customers.server";
import type { Route } from "./+types/customers";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("customers.view")];

export const meta: Route.MetaFunction = () => [{ title: `Customers | ${BRAND}` }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const params = new URL(request.url).searchParams;
  const asked = { q: params.get("q") ?? "", cursor: params.get("cursor") ?? "" };
  const search = checkForm(customerSearchSchema, asked);
  const paged = asked.cursor !== "";
  if (!search.ok) return { q: asked.q, paged, rows: [], nextCursor: null, error: search.problem.message };
  return { q: search.value.q, paged, ...(await searchCustomers(app(context).db, search.value)), error: undefined };
}

type Customer = Route.ComponentProps["loaderData"]["rows"][number];

const FIELDS: Column<Customer>[] = [
  {
    label: "Customer",
    value: (c) => (
      <Link to={customerHref(c)} className="font-semibold text-accent hover:underline">
        {c.username ?? c.email}
      </Link>
    ),
  },
  { label: "E-mail", value: (c) => <span className="wrap-anywhere whitespace-normal">{c.email}</span> },
  { label: "Standing", value: (c) => <CustomerBadges role={c.role} bannedAt={c.bannedAt} hasAccount={c.id !== null} /> },
  {
    label: "Joined",
    value: (c) => (c.joinedAt === null ? <span className="text-muted">—</span> : <LocalTime ms={c.joinedAt} className="text-muted" />),
  },
];

export default function Customers({ loaderData }: Route.ComponentProps) {
  const { q, paged, rows, nextCursor, error } = loaderData;
  const searching = useSearching("/dashboard/customers");
  return (
    <div className="space-y-8">
      <h1 className="flex items-center gap-3 text-3xl font-black tracking-tight">
        CUSTOMERS <Users className="size-6 text-accent" aria-hidden />
      </h1>
      <Card>
        <SearchForm
          searching={searching}
          label="Find a customer"
          defaultValue={q}
          maxLength={256}
          hint="E-mail or username (or how either starts), a key, or a PC's hardware id."
          error={error}
        />
      </Card>
      <Card aria-busy={searching}>
        <h2 className="font-bold">{q ? `Results for "${q}"` : paged ? "Older accounts" : "Newest accounts"}</h2>
        {rows.length === 0 ? (
          <p className="mt-3 text-sm text-muted">
            {error ? "Fix the search above." : q ? "No customer matches. Keys and hardware ids are matched exactly." : "No accounts yet."}
          </p>
        ) : (
          <ResponsiveTable rows={rows} columns={FIELDS} rowKey={(c) => c.id ?? `email:${c.email}`} label="Customers" />
        )}
        <Pager newest={paged ? "." : null} older={nextCursor ? `?cursor=${encodeURIComponent(nextCursor)}` : null} />
      </Card>
    </div>
  );
}
