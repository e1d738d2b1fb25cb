// Release channels and what each needs (beta builds only for licences with the `beta`
// entitlement), a release as the downloads page shows it, and the words of a refusal.
import { type LicencePlan, PLAN_NAME } from "./plans";

export const RELEASE_CHANNELS = ["stable", "beta"] as const;
export type ReleaseChannel = (typeof RELEASE_CHANNELS)[number];

/** The entitlement a channel itself requires (decision 055). */
export const CHANNEL_ENTITLEMENT: Record<ReleaseChannel, string | null> = { stable: null, beta: "beta" };

/** The entitlements a release needs: its channel's and its own. */
export const releaseNeeds = (release: { channel: ReleaseChannel; entitlement: string | null }) =>
  [CHANNEL_ENTITLEMENT[release.channel], release.entitlement].filter((name): name is string => name !== null);

/** The first words of every refused download, as the downloads page says them. */
export const SUBSCRIPTION_REQUIRED = "Active subscription required to download this file";

/**
 * What a member lacks for a release, in words: a live licence of its product (`product`, when they
 * hold none) and the entitlements it needs that their licence does not include (`needs`, by label),
 * with the plans of the product that include all of it (what to buy).
 */
export interface Locked {
  product: string | null;
  needs: string[];
  plans: LicencePlan[];
}

/** "a, b and c" (or "or"). */
const listed = (words: string[], last: "and" | "or") =>
  words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} ${last} ${words.at(-1)}`;

/** The locked release's line: "Needs Beta Access, included in the Monthly and Lifetime plans". */
export function lockedReason({ product, needs, plans }: Locked): string {
  const names = plans.map((plan) => PLAN_NAME[plan]);
  if (product !== null) {
    const licence = `${/^[aeiou]/i.test(product) ? "an" : "a"} ${product} licence${needs.length > 0 ? ` with ${listed(needs, "and")}` : ""}`;
    return names.length > 0 ? `Needs ${licence}: the ${listed(names, "or")} plan` : `Needs ${licence}`;
  }
  const included = names.length > 0 ? `, included in the ${listed(names, "and")} plan${names.length > 1 ? "s" : ""}` : "";
  return `Needs ${listed(needs, "and")}${included}`;
}

export interface ReleaseView {
  id: string;
  version: string;
  notesHtml: string;
  fileName: string;
  size: number;
  sha256: string | null;
  publishedAt: number | null;
  /** Null when the member may download it. */
  locked: Locked | null;
}

/** One product's channel on the downloads page: its newest release and the older ones. */
export interface ChannelShelf {
  product: string;
  channel: ReleaseChannel;
  latest: ReleaseView;
  older: ReleaseView[];
}
