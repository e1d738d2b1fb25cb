// The cards of a customer's account page: profile and sign-in security, standing (ban, role),
// subscriptions, sessions, the reseller balance and blocking the customer. Each form posts an intent to the page's action
// and shows its answer as a toast; the server checks every capability again.
import { type ReactNode } from "react";
import { BlockExpiryField } from "~/components/block-expiry-field";
import { useFetcher } from "react-router";
import type * as v from "valibot";
import type { Answer } from "~/lib/answer";
import { formatUsd } from "~/lib/format";
import type { LicenceView } from "~/lib/licences";
import { variantLabel } from "~/lib/plans";
import { type Role, ROLE_LABEL } from "~/lib/roles";
import {
  banSchema,
  type CustomerActionInput,
  customerActionSchema,
  customerInputTitle,
  deleteAccountOnRequestSchema,
  ROLE_CHOICES,
  roleSchema,
} from "~/lib/schemas/customers";
import { creditSchema } from "~/lib/schemas/reseller";
import { BalanceHistory, type LedgerEntry } from "~/components/balance-history";
import { DetailRow, LicenceExpiry } from "~/components/licence-details";
import { LocalTime } from "~/components/local-time";
import { OrderRef } from "~/components/order-ref";
import { Badge } from "~/components/ui/badge";
import { Download } from "~/components/icons";
import { Button, buttonClass, type ButtonVariant } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { describedBy, Field, FieldNotes } from "~/components/ui/field";
import { inputClass } from "~/components/ui/input-class";
import { ConfirmedAction } from "~/components/confirmed-action";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { CustomerBadges } from "./customer-badges";

/** What the page shows of one account, and what the viewer's role may do to it. */
interface CustomerAccountView {
  profile: {
    id: string;
    email: string;
    username: string;
    role: Role | null;
    bannedAt: number | null;
    banReason: string | null;
    verifiedAt: number | null;
    joinedAt: number;
    deletedAt: number | null;
  };
  security: { passkeys: number; enabled: boolean; recoveryCodesLeft: number };
  sessions: { publicId: string; device: string; place: string | null; lastSeenAt: number }[];
  subscriptions: {
    id: string;
    productTitle: string;
    variantTitle: string;
    status: "active" | "expired" | "revoked";
    code: string | null;
    orderId: string | null;
    orderName: string | null;
    licence: LicenceView | null;
    expiryDate: number | null;
  }[];
  reseller: { account: { balanceCents: number } | null; ledger: LedgerEntry[] };
  /** The viewer's own account: never banned or demoted from here. */
  self: boolean;
  may: { ban: boolean; sessions: boolean; credit: boolean; role: boolean; block: boolean; privacy: boolean };
  known: { email: string; emails: string[]; hwids: string[]; ips: string[] } | null;
  /** The credit form's idempotency key, when the viewer may credit. */
  creditRequest: string | null;
}

const SCHEMAS: Partial<Record<CustomerActionInput["intent"], typeof customerActionSchema | v.GenericSchema>> = {
  ban: banSchema,
  credit: creditSchema,
  role: roleSchema,
  "delete-account": deleteAccountOnRequestSchema,
};

/**
 * One of the page's forms: hidden fields, an optional input, a button; its answer shows as a toast.
 * With `confirm`, the button opens a dialog that says what the action costs, and the input (a ban's
 * reason) is asked there.
 */
function ActionForm({
  intent,
  fields = {},
  label,
  variant = "primary",
  confirm,
  children,
}: {
  intent: CustomerActionInput["intent"];
  fields?: Record<string, string>;
  label: string;
  variant?: ButtonVariant;
  confirm?: { title: string; cost: string; busy?: string };
  children?: (errors: Record<string, string | undefined>) => ReactNode;
}) {
  const fetcher = useFetcher<Answer>();
  const schema = SCHEMAS[intent] ?? customerActionSchema;
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, schema, {
    title: customerInputTitle,
    answer: fetcher.data?.intent === intent ? fetcher.data : null,
  });
  if (confirm) {
    return (
      <ConfirmedAction
        fetcher={fetcher}
        fields={{ intent, ...fields }}
        title={confirm.title}
        cost={confirm.cost}
        confirmLabel={label}
        busyLabel={confirm.busy ?? "Saving..."}
        variant={variant === "ghost" || variant === "outline" ? "danger" : variant}
        schema={schema}
        problemTitle={customerInputTitle}
        trigger={(open) => (
          <Button variant={variant} onClick={open}>
            {label}
          </Button>
        )}
      >
        {children}
      </ConfirmedAction>
    );
  }
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

export function ProfileCard({ profile, security }: Pick<CustomerAccountView, "profile" | "security">) {
  return (
    <Card className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-black break-all">{profile.username}</h1>
        <CustomerBadges role={profile.role} bannedAt={profile.bannedAt} />
      </div>
      <dl className="grid grid-cols-[minmax(0,8rem)_minmax(0,1fr)] gap-x-4 gap-y-2 text-sm sm:grid-cols-2 lg:grid-cols-3">
        <DetailRow label="E-mail">
          <span className="break-all">{profile.email}</span>{" "}
          {profile.verifiedAt ? <Badge tone="green">Verified</Badge> : <Badge tone="yellow">Not verified</Badge>}
        </DetailRow>
        <DetailRow label="Joined">
          <LocalTime ms={profile.joinedAt} format="datetime" />
        </DetailRow>
        <DetailRow label="Role">{profile.role ? ROLE_LABEL[profile.role] : "Member"}</DetailRow>
        <DetailRow label="Authenticator app">
          {security.enabled ? `On · ${security.recoveryCodesLeft} recovery code(s) left` : "Off"}
        </DetailRow>
        <DetailRow label="Passkeys">{security.passkeys}</DetailRow>
        {profile.deletedAt !== null ? (
          <DetailRow label="Deleted">
            <LocalTime ms={profile.deletedAt} format="datetime" /> · orders kept, anonymised
          </DetailRow>
        ) : null}
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

export function StandingCard({ profile, self, may }: Pick<CustomerAccountView, "profile" | "self" | "may">) {
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
          <ActionForm
            intent="ban"
            label="Ban account"
            variant="danger"
            confirm={{
              title: `Ban ${profile.username}?`,
              cost: "Every session of the account ends at once and every way of signing in is refused, with your reason, until the ban is lifted. Their keys keep working.",
            }}
          >
            {(errors) => (
              <Field
                label="Reason for the ban"
                name="reason"
                required
                maxLength={200}
                autoComplete="off"
                error={errors.reason}
                data-autofocus
              />
            )}
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
              <select
                id="role"
                name="role"
                defaultValue={profile.role ?? "member"}
                className={inputClass}
                {...describedBy("role", { hint: ROLE_HINT, error: errors.role })}
              >
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

/**
 * Blocking the customer (decision 093): one confirmation that blocks their e-mail and offers, ticked,
 * every PC, address and other e-mail the shop knows of them.
 */
export function BlockCard({ profile, known }: Pick<CustomerAccountView, "profile"> & { known: NonNullable<CustomerAccountView["known"]> }) {
  const offered = [
    ...known.hwids.map((value) => ({ kind: "hwid", label: "PC", value })),
    ...known.ips.map((value) => ({ kind: "ip", label: "Address", value })),
    ...known.emails.map((value) => ({ kind: "email", label: "E-mail", value })),
  ];
  return (
    <Card className="space-y-3">
      <h2 className="font-bold">Blocklist</h2>
      <p className="text-sm text-muted">
        {offered.length > 0
          ? `Blocks ${known.email} and, if you keep them ticked, the PCs, addresses and e-mails known of this customer (${offered.length}).`
          : `Blocks ${known.email}. No PC, address or other e-mail is known of this customer.`}
      </p>
      <ActionForm
        intent="block-customer"
        label="Block customer"
        variant="danger"
        confirm={{
          title: `Block ${profile.username}?`,
          cost: "Their paid orders wait for review instead of keys, their PCs answer BANNED for any key, and sign-ins and licence checks from their addresses are refused, until the blocks are lifted or expire.",
        }}
      >
        {(errors) => (
          <div className="space-y-3">
            <Field label="Reason" name="reason" required maxLength={200} autoComplete="off" error={errors.reason} data-autofocus />
            <BlockExpiryField error={errors.expires} />
            {offered.length > 0 ? (
              <fieldset className="space-y-1.5">
                <legend className="text-sm font-medium text-zinc-200">Also block</legend>
                {offered.map((item, index) => (
                  <label key={`${item.kind}:${item.value}`} className="flex items-start gap-2 text-sm">
                    <input type="checkbox" name={`take-${index}`} value={`${item.kind}:${item.value}`} defaultChecked className="mt-1" />
                    <span>
                      {item.label} <span className="font-mono text-xs break-all">{item.value}</span>
                    </span>
                  </label>
                ))}
              </fieldset>
            ) : null}
          </div>
        )}
      </ActionForm>
    </Card>
  );
}

export function SessionsCard({ sessions, may }: Pick<CustomerAccountView, "sessions" | "may">) {
  return (
    <Card>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 className="font-bold">Sessions</h2>
        {may.sessions && sessions.length > 0 ? (
          <ActionForm
            intent="end-sessions"
            fields={{ session: "" }}
            label="End all sessions"
            variant="outline"
            confirm={{
              title: "End every session?",
              cost: "The member is signed out on every device at once, and their open chat closes. They can sign in again.",
            }}
          />
        ) : null}
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
                  <ActionForm
                    intent="end-sessions"
                    fields={{ session: s.publicId }}
                    label="End"
                    variant="ghost"
                    confirm={{
                      title: `End the session on ${s.device}?`,
                      cost: "That device is signed out at once. The member can sign in there again.",
                    }}
                  />
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

export function SubscriptionsCard({ subscriptions }: Pick<CustomerAccountView, "subscriptions">) {
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
                {s.productTitle} — {variantLabel(s.variantTitle)}
              </span>
              <Badge tone={s.status === "active" ? "green" : s.status === "revoked" ? "red" : "gray"}>{s.status}</Badge>
              {s.code ? <span className="font-mono text-muted">{s.code}</span> : null}
              {s.orderId ? <OrderRef name={s.orderName} id={s.orderId} /> : null}
              <span className="text-muted">
                {s.licence ? (
                  <>
                    Expires: <LicenceExpiry licence={s.licence} never="Never" />
                  </>
                ) : s.expiryDate === null ? (
                  "Expires: Never"
                ) : (
                  <>
                    Expires: <LocalTime ms={s.expiryDate} />
                  </>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

export function ResellerCard({ reseller, may, creditRequest }: Pick<CustomerAccountView, "reseller" | "may" | "creditRequest">) {
  if (!reseller.account && !may.credit) return null;
  return (
    <Card>
      <h2 className="font-bold">Reseller balance</h2>
      <p className="mt-2 text-2xl font-black">{reseller.account ? formatUsd(reseller.account.balanceCents) : "No reseller account"}</p>
      {creditRequest ? (
        <div className="mt-4">
          <ActionForm intent="credit" label="Credit" fields={{ request: creditRequest }}>
            {(errors) => (
              <Field label="Amount to credit (USD)" name="amount" inputMode="decimal" required className="sm:w-48" error={errors.amount} />
            )}
          </ActionForm>
        </div>
      ) : null}
      <BalanceHistory entries={reseller.ledger} topUpHref={(order) => `/dashboard/orders/crypto/${encodeURIComponent(order)}`} />
    </Card>
  );
}

/**
 * A member's own data, at their request (decision 099): a copy of it to hand them, or the account
 * deleted. Admins only; both are audited.
 */
export function PrivacyCard({ profile, self, may }: Pick<CustomerAccountView, "profile" | "self" | "may">) {
  if (!may.privacy) return null;
  return (
    <Card className="space-y-4">
      <h2 className="font-bold">Member&apos;s data</h2>
      <p className="text-sm text-muted">
        When a member asks for a copy of their data or for their account to be deleted (and cannot do it from their Security page), do it
        here. Both are in the audit log.
      </p>
      <div className="flex flex-wrap items-center gap-3">
        <a href={`/dashboard/customers/${profile.id}/data.json`} download className={buttonClass("outline")}>
          <Download className="size-4" aria-hidden /> Download their data (JSON)
        </a>
        {profile.deletedAt !== null ? (
          <p className="text-sm text-muted">The account has been deleted.</p>
        ) : self ? (
          <p className="text-sm text-muted">Your own account is deleted from your Security page.</p>
        ) : profile.role ? (
          <p className="text-sm text-muted">Staff accounts cannot be deleted: make it a member account first.</p>
        ) : (
          <ActionForm
            intent="delete-account"
            label="Delete account"
            variant="danger"
            confirm={{
              title: `Delete ${profile.username}'s account?`,
              cost: "Every session ends, their chat messages and reviews are deleted, their Discord roles are taken back and their own keys stop working; they get a last e-mail. Their orders stay, without their name or address. This cannot be undone.",
              busy: "Deleting...",
            }}
          >
            {(errors) => (
              <Field
                label="Whose request (ticket or message)"
                name="reason"
                required
                maxLength={200}
                autoComplete="off"
                error={errors.reason}
                data-autofocus
              />
            )}
          </ActionForm>
        )}
      </div>
    </Card>
  );
}
