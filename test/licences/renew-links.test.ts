// The renewal link a timed licence's answer carries: one link per licence for the hour, working for
// at least its seven days, and only for the licence and plan it names.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signedRenewLink, verifyRenewLink } from "~/server/licences/renew-links.server";
import { licenceSigner } from "~/server/licences/signing.server";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "~/lib/time";

const ORIGIN = "https://shop.example";
const HOUR = Date.parse("2031-03-10T08:00:00.000Z");

async function signer() {
  const loaded = await licenceSigner(env.LICENCE_SIGNING_KEY);
  if (!loaded.ok) throw new Error(loaded.problem.message);
  return loaded.value;
}

const parameters = (link: string) => {
  const { searchParams } = new URL(link);
  return { plan: searchParams.get("plan"), expires: searchParams.get("expires"), signature: searchParams.get("signature") };
};

describe("a renewal link", () => {
  it("is the same link for every check of a licence within the hour, and works for at least seven days from each", async () => {
    const shop = await signer();
    const licence = { id: 4711, plan: "weekly" as const };
    const early = await signedRenewLink(shop, ORIGIN, licence, HOUR + 5 * MINUTE_MS);
    const late = await signedRenewLink(shop, ORIGIN, licence, HOUR + 55 * MINUTE_MS);
    expect(late).toBe(early);
    expect(early).toMatch(new RegExp(`^${ORIGIN}/dashboard/renew/4711\\?plan=weekly&expires=\\d+&signature=[\\w-]+$`));
    const link = parameters(early);
    expect(await verifyRenewLink(shop, licence.id, link, HOUR + 55 * MINUTE_MS + 7 * DAY_MS - 1)).toMatchObject({ ok: true });
    expect(await verifyRenewLink(shop, licence.id, link, HOUR + 7 * DAY_MS + 2 * HOUR_MS)).toMatchObject({ ok: false });
    // Another licence, or the next hour, gets a link of its own.
    expect(await signedRenewLink(shop, ORIGIN, { ...licence, id: 4712 }, HOUR + 5 * MINUTE_MS)).not.toBe(early);
    const next = await signedRenewLink(shop, ORIGIN, licence, HOUR + 65 * MINUTE_MS);
    expect(next).not.toBe(early);
    expect(await verifyRenewLink(shop, 4712, link, HOUR + 5 * MINUTE_MS)).toMatchObject({ ok: false });
    expect(await verifyRenewLink(shop, licence.id, parameters(next), HOUR + 65 * MINUTE_MS + 7 * DAY_MS - 1)).toMatchObject({ ok: true });
  });
});
