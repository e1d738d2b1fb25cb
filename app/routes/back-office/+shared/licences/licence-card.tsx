// The licence page's main card: the key (with a copy button), its product and plan, and everything
// about its licence as staff see it: owner, order, PC, the owner's next reset, and any ban.
import { copyText } from "~/components/copy";
import { Copy } from "~/components/icons";
import { DetailRow, LicenceDetails } from "~/components/licence-details";
import { LocalTime } from "~/components/local-time";
import { OrderRef } from "~/components/order-ref";
import { useToast } from "~/components/toaster";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import type { AdminLicenceView } from "~/lib/licences";
import { PLAN_TERM } from "~/lib/plans";

const planLabel = (plan: AdminLicenceView["plan"]) =>
  plan === "lifetime" ? "Lifetime" : `${plan.charAt(0).toUpperCase()}${plan.slice(1)} (${PLAN_TERM[plan]})`;

export function LicenceCard({ licence }: { licence: AdminLicenceView }) {
  const { toast } = useToast();
  return (
    <Card className="space-y-5">
      <div className="space-y-1">
        <h2 className="flex items-center gap-2 font-mono text-lg font-bold break-all">
          {licence.key}
          <button
            type="button"
            className="shrink-0 rounded p-1 text-muted hover:text-white"
            aria-label="Copy licence key"
            onClick={() => copyText(licence.key, toast, { title: "Code copied to clipboard!" })}
          >
            <Copy className="size-4" aria-hidden />
          </button>
        </h2>
        <p className="text-sm text-muted">
          {licence.product} — {planLabel(licence.plan)}
        </p>
      </div>
      <LicenceDetails licence={licence} reader="admin" showExpiry>
        <DetailRow label="Owner">{licence.ownerEmail}</DetailRow>
        <DetailRow label="Order">
          {licence.orderId ? <OrderRef name={licence.orderName} id={licence.orderId} showId /> : "Generated in a reseller panel"}
        </DetailRow>
        <DetailRow label="Owner's next reset">
          {licence.nextOwnerResetAt === null ? "Any time" : <LocalTime ms={licence.nextOwnerResetAt} />}
        </DetailRow>
        {licence.state === "banned" ? <DetailRow label="Key ban reason">{licence.banReason}</DetailRow> : null}
        {licence.ownerBan ? (
          <DetailRow label="Owner's account">
            <Badge tone="red">Banned</Badge>
            <span className="mt-1 block">
              The key answers BANNED until the account is unbanned{licence.ownerBan.reason ? ` · ${licence.ownerBan.reason}` : ""}{" "}
              <span className="text-muted">
                · since <LocalTime ms={licence.ownerBan.bannedAt} />
              </span>
            </span>
          </DetailRow>
        ) : null}
        {licence.hwid === null ? null : (
          <DetailRow label="PC ban">
            {licence.hwidBan ? (
              <>
                <Badge tone="red">Banned</Badge>
                <span className="mt-1 block">
                  {licence.hwidBan.reason}{" "}
                  <span className="text-muted">
                    · since <LocalTime ms={licence.hwidBan.bannedAt} />
                  </span>
                </span>
              </>
            ) : (
              "Not banned"
            )}
          </DetailRow>
        )}
      </LicenceDetails>
    </Card>
  );
}
