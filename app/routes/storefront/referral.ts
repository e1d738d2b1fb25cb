// /r/<code>: an affiliate's link. It remembers the referral in a first-party cookie (the last link
// followed wins) and lands on the home page. Its own uncached route, so every storefront page
// stays the same cached bytes for everyone (decision 058).
import { redirect } from "react-router";
import * as v from "valibot";
import { app } from "~/http/context.server";
import { referralCookie } from "~/http/referral.server";
import { affiliateCodeSchema } from "~/lib/schemas/affiliates";
import { followReferralLink } from "~/server/affiliates/programme.server";
import type { Route } from "./+types/referral";

export async function loader({ params, context }: Route.LoaderArgs) {
  const code = v.safeParse(affiliateCodeSchema, params.code);
  const followed = code.success ? await followReferralLink(app(context).db, code.output) : null;
  const headers = new Headers({ "Cache-Control": "private, no-store" });
  // An unknown or paused code lands on the home page all the same, remembering nothing.
  if (followed) headers.append("Set-Cookie", referralCookie(followed));
  return redirect("/", { headers });
}
