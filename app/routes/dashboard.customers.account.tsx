// /dashboard/customers/:id: one account as staff see it — profile, orders, subscriptions, keys,
// sessions, sign-in security and reseller balance — and, by role, what may be done to it: ban or
// unban it, end its sessions, credit its balance, change its role. Each intent checks its own
// capability here and again in the domain, and is audited.
import { type ReactNode, useRef } from "react";
import { data, Link, useFetcher } from "react-router";
import { CustomerBadges } from "~/components/admin/customer-badges";
import { CustomerLicencesCard, CustomerOrdersCard } from "~/components/admin/customer-cards";
import { BalanceHistory } from "~/components/balance-history";
import { ArrowLeft } from "~/components/icons";
import { DetailRow } from "~/components/licence-details";
import { LocalTime } from "~/components/local-time";
import { OrderRef } from "~/components/order-ref";
import { Badge } from "~/components/ui/badge";
import { Button, type ButtonVariant, buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { describedBy, Field, FieldNotes, inputClass } from "~/components/ui/field";
import { useFormCheck } from "~/components/use-form-check";
import { useResultToast } from "~/components/use-result-toast";
import { answer, answerProblem, type ProblemTitles } from "~/http/answer.server";
import { app, sessionDeps } from "~/http/context.server";
import { assertCapability, currentViewer, requireCapability } from "~/http/guards.server";
import { readSubmission } from "~/http/submission.server";
import { BRAND } from "~/lib/brand";
import { formatUsd } from "~/lib/format";
import type { Problem, Result } from "~/lib/result";
import { type Capability, can, ROLE_LABEL } from "~/lib/roles";
import { banSchema, type CustomerActionInput, customerActionSchema, ROLE_CHOICES, roleSchema } from "~/lib/schemas/customers";
import { creditSchema } from "~/lib/schemas/reseller";
import { clientAddress } from "~/server/accounts/throttle.server";
import { assignRole, banCustomer, endCustomerSessions, unbanCustomer } from "~/server/admin/customer-actions.server";
import { customerAccount } from "~/server/admin/customers.server";
import { creditBalance } from "~/server/hub/reseller.server";
import { resetCooldownMs } from "~/server/licences/licences.server";
import type { Route } from "./+types/dashboard.customers.account";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("customers.view")];

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: `${loaderData?.profile.username ?? "Customer"} | ${BRAND}` }];

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const customer = await customerAccount(db, params.id, request, resetCooldownMs(env.HWID_RESET_COOLDOWN_DAYS));
  if (!customer) throw data({ message: "No such customer" }, { status: 404 });
  const { role, id } = currentViewer(context);
  const allowed = (capability: Capability) => can(role, capability);
  return {
    ...customer,
    self: id === customer.profile.id,
    may: { ban: allowed("customers.ban"), sessions: allowed("customers.sessions"), credit: allowed("balances.credit"), role: allowed("roles.assign") },
  };
}

const INTENT_CAPABILITY: Record<CustomerActionInput["intent"], Capability> = {
  ban: "customers.ban",
  unban: "customers.ban",
  "end-sessions": "customers.sessions",
  credit: "balances.credit",
  role: "roles.assign",
};

const inputTitle = (problem: Problem) => (problem.field === "reason" ? "Reason required" : problem.field === "amount" ? "Invalid Amount" : "Error");
const titles: ProblemTitles = { invalid: inputTitle, forbidden: "Not allowed", "not-found": "Not found", conflict: "Nothing changed" };

export async function action({ request, params, context }: Route.ActionArgs) {
  const submission = await readSubmission(request, customerActionSchema);
  if (!submission.ok) return answerProblem(submission.problem, { titles });
  const input = submission.value;
  const viewer = assertCapability(context, INTENT_CAPABILITY[input.intent]);
  const { db } = app(context);
  const actor = { viewer, ip: clientAddress(request) };
  const reply = <T,>(result: Result<T>, description: (value: T) => string, title: string) =>
    answer(result, { titles, intent: input.intent, success: (value) => ({ title, description: description(value) }) });
  switch (input.intent) {
    case "ban":
      return reply(await banCustomer(sessionDeps(context), actor, params.id, input.reason), ({ sessionsEnded }) => `Signed out of ${sessionsEnded} session(s); sign-in is refused.`, "Customer banned");
    case "unban":
      return reply(await unbanCustomer(db, actor, params.id), () => "They can sign in again.", "Ban lifted");
    case "end-sessions":
      return reply(await endCustomerSessions(sessionDeps(context), actor, params.id, input.session), ({ ended }) => `${ended} session(s) ended.`, "Signed out");
    case "credit":
      return reply(await creditBalance(db, viewer, params.id, input, actor.ip), ({ balanceCents }) => `The balance is now ${formatUsd(balanceCents)}.`, "Balance credited");
    case "role":
      return reply(await assignRole(db, actor, params.id, input.role), ({ role }) => `Now ${role ? ROLE_LABEL[role] : "a member"}; it applies from their next request.`, "Role changed");
  }
}

type Data = Route.ComponentProps["loaderData"];

/** One of the page's forms: hidden fields, an optional input, a button; its answer shows as a toast. */
function ActionForm({
  intent,
  fields = {},
  label,
  variant = "primary",
  children,
}: {
  intent: CustomerActionInput["intent"];
  fields?: Record<string, string>;
  label: string;
  variant?: ButtonVariant;
  children?: (errors: Record<string, string | undefined>) => ReactNode;
}) {
  const fetcher = useFetcher<typeof action>();
  const formRef = useRef<HTMLFormElement>(null);
  useResultToast(fetcher, () => formRef.current?.reset());
  const schema = intent === "ban" ? banSchema : intent === "credit" ? creditSchema : intent === "role" ? roleSchema : customerActionSchema;
  const { errors, onSubmit } = useFormCheck(schema, { title: inputTitle, answer: fetcher.data?.intent === intent ? fetcher.data : null });
  const busy = fetcher.state !== "idle";
  return (
    <fetcher.Form ref={formRef} method="post" onSubmit={onSubmit} className="flex flex-col gap-3 sm:flex-row sm:items-end">
      <input type="hidden" name="intent" value={intent} />
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {children?.(errors)}
      <Button type="submit" variant={variant} disabled={busy}>
        {busy ? "Saving..." : label}
      </Button>
    </fetcher.Form>
  );
}

function ProfileCard({ profile, security }: Pick<Data, "profile" | "security">) {
  return (
    <Card className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-black break-all">{profile.username}</h1>
        <CustomerBadges role={profile.role} bannedAt={profile.bannedAt} />
      </div>
      <dl className="grid grid-cols-[minmax(0,8rem)_minmax(0,1fr)] gap-x-4 gap-y-2 text-sm sm:grid-cols-2 lg:grid-cols-3">
        <DetailRow label="E-mail">
          <span className="break-all">{profile.email}</span> {profile.verifiedAt ? <Badge tone="green">Verified</Badge> : <Badge tone="yellow">Not verified</Badge>}
        </DetailRow>
        <DetailRow label="Joined">
          <LocalTime ms={profile.joinedAt} format="datetime" />
        </DetailRow>
        <DetailRow label="Role">{profile.role ? ROLE_LABEL[profile.role] : "Member"}</DetailRow>
        <DetailRow label="Authenticator app">{security.enabled ? `On · ${security.recoveryCodesLeft} recovery code(s) left` : "Off"}</DetailRow>
        <DetailRow label="Passkeys">{security.passkeys}</DetailRow>
        {profile.bannedAt !== null ? (
          <DetailRow label="Banned">
            <LocalTime ms={profile.bannedAt} format="datetime" /> · {profile.banReason}
          </DetailRow>
        ) : null}
      </dl>
    </Card>
  );
}

const ROLE_HINT = "Support reads orders and customers and resets PCs; admins may do everything. It applies from their next request.";

function StandingCard({ profile, self, may }: Pick<Data, "profile" | "self" | "may">) {
  if (!may.ban && !may.role) return null;
  return (
    <Card className="space-y-5">
      <h2 className="font-bold">Standing</h2>
      {self ? <p className="text-sm text-muted">This is your own account: you cannot ban it or change its role.</p> : null}
      {may.ban && !self ? (
        profile.bannedAt !== null ? (
          <ActionForm intent="unban" label="Lift the ban" variant="outline" />
        ) : profile.role === "admin" ? (
          <p className="text-sm text-muted">Admins cannot be banned: make them a member first.</p>
        ) : (
          <ActionForm intent="ban" label="Ban account" variant="danger">
            {(errors) => <Field label="Reason for the ban" name="reason" required maxLength={200} autoComplete="off" className="sm:flex-1" error={errors.reason} />}
          </ActionForm>
        )
      ) : null}
      {may.role && !self ? (
        <ActionForm intent="role" label="Change role" variant="outline">
          {(errors) => (
            <div className="space-y-1.5 sm:flex-1">
              <label htmlFor="role" className="block text-sm font-medium text-zinc-200">
                Role
              </label>
              <select id="role" name="role" defaultValue={profile.role ?? "member"} className={inputClass} {...describedBy("role", { hint: ROLE_HINT, error: errors.role })}>
                {ROLE_CHOICES.map((choice) => (
                  <option key={choice} value={choice}>
                    {choice === "member" ? "Member" : ROLE_LABEL[choice]}
                  </option>
                ))}
              </select>
              <FieldNotes id="role" hint={ROLE_HINT} error={errors.role} />
            </div>
          )}
        </ActionForm>
      ) : null}
    </Card>
  );
}

function SessionsCard({ sessions, may }: Pick<Data, "sessions" | "may">) {
  return (
    <Card>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 className="font-bold">Sessions</h2>
        {may.sessions && sessions.length > 0 ? <ActionForm intent="end-sessions" fields={{ session: "" }} label="End all sessions" variant="outline" /> : null}
      </div>
      {sessions.length === 0 ? (
        <p className="mt-3 text-sm text-muted">Not signed in anywhere.</p>
      ) : (
        <ul className="mt-3 divide-y divide-line text-sm">
          {sessions.map((s) => (
            <li key={s.publicId} className="flex flex-wrap items-center gap-x-4 gap-y-2 py-2">
              <span className="font-medium">{s.device}</span>
              <span className="text-muted">{s.place ?? "Unknown place"}</span>
              <span className="text-muted">
                Last seen <LocalTime ms={s.lastSeenAt} format="datetime" />
              </span>
              {may.sessions ? (
                <span className="sm:ml-auto">
                  <ActionForm intent="end-sessions" fields={{ session: s.publicId }} label="End" variant="ghost" />
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function SubscriptionsCard({ subscriptions }: Pick<Data, "subscriptions">) {
  return (
    <Card>
      <h2 className="font-bold">Subscriptions</h2>
      {subscriptions.length === 0 ? (
        <p className="mt-3 text-sm text-muted">No subscriptions.</p>
      ) : (
        <ul className="mt-3 divide-y divide-line text-sm">
          {subscriptions.map((s) => (
            <li key={s.id} className="flex flex-wrap items-center gap-x-4 gap-y-1 py-2">
              <span className="font-medium">
                {s.productTitle} — {s.variantTitle}
              </span>
              <Badge tone={s.status === "active" ? "green" : s.status === "revoked" ? "red" : "gray"}>{s.status}</Badge>
              {s.code ? <span className="font-mono text-muted">{s.code}</span> : null}
              {s.orderId ? <OrderRef name={s.orderName} id={s.orderId} /> : null}
              <span className="text-muted">{s.expiryDate === null ? "No expiry" : <>Expires <LocalTime ms={s.expiryDate} /></>}</span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function ResellerCard({ reseller, may }: Pick<Data, "reseller" | "may">) {
  if (!reseller.account && !may.credit) return null;
  return (
    <Card>
      <h2 className="font-bold">Reseller balance</h2>
      <p className="mt-2 text-2xl font-black">{reseller.account ? formatUsd(reseller.account.balanceCents) : "No reseller account"}</p>
      {may.credit ? (
        <div className="mt-4">
          <ActionForm intent="credit" label="Credit">
            {(errors) => <Field label="Amount to credit (USD)" name="amount" inputMode="decimal" required className="sm:w-48" error={errors.amount} />}
          </ActionForm>
        </div>
      ) : null}
      <BalanceHistory entries={reseller.ledger} topUpHref={(order) => `/dashboard/orders/crypto/${encodeURIComponent(order)}`} />
    </Card>
  );
}

export default function CustomerAccount({ loaderData }: Route.ComponentProps) {
  const { profile, orders, moreOrders, subscriptions, licences, sessions, security, reseller, self, may } = loaderData;
  return (
    <div className="space-y-6">
      <Link to="/dashboard/customers" className={buttonClass("ghost", "sm")}>
        <ArrowLeft className="size-4" aria-hidden /> Customers
      </Link>
      <ProfileCard profile={profile} security={security} />
      <StandingCard profile={profile} self={self} may={may} />
      <CustomerOrdersCard orders={orders} moreOrders={moreOrders} email={profile.email} />
      <SubscriptionsCard subscriptions={subscriptions} />
      <CustomerLicencesCard licences={licences} />
      <SessionsCard sessions={sessions} may={may} />
      <ResellerCard reseller={reseller} may={may} />
    </div>
  );
}
