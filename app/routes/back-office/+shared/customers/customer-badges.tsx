// How a customer's standing reads at a glance: their role (staff only) and whether they are banned.
import { ROLE_LABEL, type Role } from "~/lib/roles";
import { Badge } from "~/components/ui/badge";

export function CustomerBadges({
  role,
  bannedAt,
  hasAccount = true,
}: {
  role: Role | null;
  bannedAt: number | null;
  hasAccount?: boolean;
}) {
  if (!hasAccount) return <Badge tone="gray">No account</Badge>;
  return (
    <span className="inline-flex flex-wrap gap-1.5">
      {role ? <Badge tone={role === "admin" ? "orange" : "blue"}>{ROLE_LABEL[role]}</Badge> : <Badge tone="gray">Member</Badge>}
      {bannedAt !== null ? <Badge tone="red">Banned</Badge> : null}
    </span>
  );
}

/** Where a customer's page is: by account, or by e-mail for a buyer without one. */
export function customerHref(customer: { id: string | null; email: string }): string {
  return customer.id ? `/dashboard/customers/${customer.id}` : `/dashboard/customers/email/${encodeURIComponent(customer.email)}`;
}
