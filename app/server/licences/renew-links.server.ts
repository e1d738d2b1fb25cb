// One-click renewal links (decisions 090 and 091): the reminders' e-mails and the licence API's
// signed answer carry a link that leads the owner to the checkout of their licence's plan with the
// licence named. It is signed with the shop's licence key and expires, so it can be neither made up
// for another licence nor kept for ever; it grants nothing by itself: the owner signs in first, and
// the renewal is judged again when it is paid.
import { fail, ok, type Result } from "~/lib/result";
import { LICENCE_PLANS, type LicencePlan } from "~/lib/plans";
import { DAY_MS } from "~/lib/time";
import { fromBase64, fromBase64Url, toBase64Url } from "../platform/tokens.server";
import type { LicenceSigner } from "./signing.server";

/** How long a renewal link works. */
export const RENEW_LINK_DAYS = 7;

/** Where a renewal link leads: the member's renewal of one licence. */
export const renewPath = (licenceId: number) => `/dashboard/renew/${licenceId}`;

const linkBytes = (licenceId: number, plan: string, expires: number) =>
  new TextEncoder().encode(`licence-renew\n${licenceId}\n${plan}\n${expires}`);

/** A link to renew licence `licence` on `plan` (its own), signed by the shop, working for RENEW_LINK_DAYS. */
export async function signedRenewLink(
  signer: LicenceSigner,
  origin: string,
  licence: { id: number; plan: LicencePlan },
  now: number,
): Promise<string> {
  const expires = now + RENEW_LINK_DAYS * DAY_MS;
  const signature = toBase64Url(fromBase64(await signer.sign(linkBytes(licence.id, licence.plan, expires))));
  return `${origin}${renewPath(licence.id)}?plan=${licence.plan}&expires=${expires}&signature=${signature}`;
}

export interface RenewLinkParameters {
  plan: string | null;
  expires: string | null;
  signature: string | null;
}

/** The plan a renewal link names, if the link is the shop's, for this licence, and unexpired. */
export async function verifyRenewLink(
  signer: LicenceSigner,
  licenceId: number,
  link: RenewLinkParameters,
  now: number,
): Promise<Result<{ plan: LicencePlan }>> {
  const expires = Number(link.expires);
  const plan = LICENCE_PLANS.find((p) => p === link.plan);
  let genuine = false;
  try {
    genuine =
      plan !== undefined &&
      Number.isSafeInteger(expires) &&
      link.signature !== null &&
      (await signer.verify(linkBytes(licenceId, plan, expires), fromBase64Url(link.signature)));
  } catch {
    genuine = false;
  }
  if (!genuine || !plan) return fail("forbidden", "This renewal link is not valid");
  if (expires <= now) return fail("forbidden", "This renewal link has expired");
  return ok({ plan });
}
