// Release channels and what each needs (beta builds only for licences with the `beta`
// entitlement), and a release as the downloads page shows it.
import type { LicencePlan } from "./plans";

export const RELEASE_CHANNELS = ["stable", "beta"] as const;
export type ReleaseChannel = (typeof RELEASE_CHANNELS)[number];

/** The entitlement a channel itself requires (decision 055). */
export const CHANNEL_ENTITLEMENT: Record<ReleaseChannel, string | null> = { stable: null, beta: "beta" };

/** The entitlements a release needs: its channel's and its own. */
export const releaseNeeds = (release: { channel: ReleaseChannel; entitlement: string | null }) =>
  [CHANNEL_ENTITLEMENT[release.channel], release.entitlement].filter((name): name is string => name !== null);

export interface ReleaseView {
  id: string;
  version: string;
  notesHtml: string;
  fileName: string;
  size: number;
  sha256: string | null;
  publishedAt: number | null;
  /** What the member lacks, in words, and the plans that include all of it; null when it is theirs. */
  locked: { needs: string[]; plans: LicencePlan[] } | null;
}

export interface ChannelShelf {
  channel: ReleaseChannel;
  latest: ReleaseView;
  older: ReleaseView[];
}
